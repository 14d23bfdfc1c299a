import { setTimeout as sleep } from 'node:timers/promises';

type Check<T> = () => Promise<T | undefined> | T | undefined;

/**
 * The one way a test waits: polls `check` until it returns a value other than undefined, or throws after
 * `ms` (a budget, not an expected duration: generous, so a loaded 2-core machine still passes).
 *
 * Say what is awaited, first: `eventually('the upstream to restart', check)`. The error then names it, the
 * check's own source and what it returned last — never only "condition not met". Without a name the check's
 * source stands for it.
 *
 * @example await eventually('the crashed upstream to leave the listing', async () => (await names()).includes('up__pid') ? undefined : true)
 */
export function eventually<T>(what: string, check: Check<T>, ms?: number): Promise<T>;
export function eventually<T>(check: Check<T>, ms?: number): Promise<T>;
export async function eventually<T>(
  first: string | Check<T>,
  second?: Check<T> | number,
  third?: number,
): Promise<T> {
  const what = typeof first === 'string' ? first : undefined;
  const check = (typeof first === 'string' ? second : first) as Check<T>;
  const ms = (typeof first === 'string' ? third : (second as number | undefined)) ?? 20_000;
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() - started > ms) throw new Error(timedOut(what, check, ms));
    await sleep(25);
  }
}

/** The failure line: what was awaited, for how long, and the check that kept answering undefined. */
function timedOut(what: string | undefined, check: Check<unknown>, ms: number): string {
  const source = check.toString().replace(/\s+/g, ' ').trim();
  const shown = source.length > 240 ? `${source.slice(0, 237)}...` : source;
  return what
    ? `waited ${ms} ms for ${what}, in vain (check: ${shown})`
    : `waited ${ms} ms for this check to return a value, in vain: ${shown}`;
}
