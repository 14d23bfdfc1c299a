// The shared fixtures of the suite (vitest's test.extend): what a test needs is named in its hook's or test's
// parameters, set up on first use and released after it — a test file holds no start/close pairs of its own.
//   test-scoped: `workspace` (a temp HOME/XDG/project for the CLI); file-scoped, for a file's
//   `test.beforeAll`: the engines `postgres`, `mariadb`, `redis`
//   (pair with `describe.skipIf(missingEngines(...))`, helpers/engines.ts). The in-process gateway's
//   `gatewayOf`/`clientOf` (helpers/gateway.ts) release what they start when the test finishes.
import { test as base } from 'vitest';
import { createWorkspace } from './cli.js';
import { startMariadb, startPostgres } from './databases.js';
import { startRedis } from './redis.js';

/** A fixture that starts something and closes it when its scope (the test, or the file) ends. */
function closing<T>(start: () => Promise<T>, close: (value: T) => Promise<void> | void) {
  return async (
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
    {},
    { onCleanup }: { onCleanup: (cleanup: () => Promise<void> | void) => void },
  ): Promise<T> => {
    const value = await start();
    onCleanup(() => close(value));
    return value;
  };
}

export const test = base
  .extend(
    'workspace',
    closing(createWorkspace, (workspace) => workspace.cleanup()),
  )
  .extend(
    'postgres',
    { scope: 'file' },
    closing(startPostgres, (server) => server.close()),
  )
  .extend(
    'mariadb',
    { scope: 'file' },
    closing(startMariadb, (server) => server.close()),
  )
  .extend(
    'redis',
    { scope: 'file' },
    closing(startRedis, (server) => server.close()),
  );
