import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The one way a test waits: polls `check` until it returns a value other than undefined, or throws after
 * `ms` (a budget, not an expected duration: generous, so a loaded 2-core machine still passes).
 */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  ms = 20_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`);
    await sleep(25);
  }
}
