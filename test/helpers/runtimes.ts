import { afterEach } from 'vitest';
import { Runtime } from '../../src/client/index.js';

/**
 * A test file's Runtimes and what else it must undo: `runtime()` creates one closed after each test, and
 * `cleanups` takes anything else (stopped in reverse order, after each test).
 */
export function runtimesForEachTest(): {
  cleanups: (() => Promise<void> | void)[];
  runtime: (options: Parameters<typeof Runtime.create>[0]) => Promise<Runtime>;
} {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    cleanups,
    runtime: async (options) => {
      const created = await Runtime.create(options);
      cleanups.push(() => created.close());
      return created;
    },
  };
}
