// The shared fixtures of the suite (vitest's test.extend): what a test needs is named in its hook's or test's
// parameters, set up on first use and released after it — a test file holds no start/close pairs of its own.
//   test-scoped: `workspace` (a temp HOME/XDG/project for the CLI), `everythingHttp` (server-everything over
//   Streamable HTTP); file-scoped, for a file's `test.beforeAll`: the engines `postgres`, `mariadb`, `redis`
//   (pair with `describe.skipIf(missingEngines(...))`, helpers/engines.ts). The in-process gateway's
//   `gatewayOf`/`clientOf` (helpers/gateway.ts) release what they start when the test finishes.
import { test as base } from 'vitest';
import { createWorkspace } from './cli.js';
import { startMariadb, startPostgres } from './databases.js';
import { startRedis } from './redis.js';
import { startEverythingHttp } from './servers.js';

export const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
  .extend('workspace', async ({}, { onCleanup }) => {
    const workspace = await createWorkspace();
    onCleanup(() => workspace.cleanup());
    return workspace;
  })
  // biome-ignore lint/correctness/noEmptyPattern: as above.
  .extend('everythingHttp', async ({}, { onCleanup }) => {
    const server = await startEverythingHttp('streamableHttp');
    onCleanup(() => server.stop());
    return server;
  })
  // biome-ignore lint/correctness/noEmptyPattern: as above.
  .extend('postgres', { scope: 'file' }, async ({}, { onCleanup }) => {
    const server = await startPostgres();
    onCleanup(() => server.close());
    return server;
  })
  // biome-ignore lint/correctness/noEmptyPattern: as above.
  .extend('mariadb', { scope: 'file' }, async ({}, { onCleanup }) => {
    const server = await startMariadb();
    onCleanup(() => server.close());
    return server;
  })
  // biome-ignore lint/correctness/noEmptyPattern: as above.
  .extend('redis', { scope: 'file' }, async ({}, { onCleanup }) => {
    const server = await startRedis();
    onCleanup(() => server.close());
    return server;
  });
