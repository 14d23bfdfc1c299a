import { mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/client/index.js';
import { sandboxSupport } from '../../src/sandbox/index.js';
import { missingEngines } from '../helpers/engines.js';
import { everything, filesystem, memory } from '../helpers/servers.js';

/** The reference servers from npm, each in a sandbox with the default profile (`"sandbox": true`). */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.skipIf(missingEngines('bwrap'))('the reference servers sandboxed with the defaults', () => {
  it('serve their tools: everything echoes, filesystem reads and writes its root, memory keeps a graph', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcpkit-sandbox-ref-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'hello.txt'), 'hello from disk');
    const rt = await Runtime.create({
      servers: [
        { name: 'everything', entry: { ...everything, cwd: dir, sandbox: true } },
        { name: 'fs', entry: { ...filesystem(dir), cwd: dir, sandbox: true } },
        // server-memory keeps its graph beside its own code unless told: here in its working directory.
        {
          name: 'memory',
          entry: { ...memory, cwd: dir, env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }, sandbox: true },
        },
      ],
    });
    cleanups.push(() => rt.close());
    expect(await rt.server('everything').callTool('echo', { message: 'hi' })).toEqual({
      content: [{ type: 'text', text: 'Echo: hi' }],
    });
    const read = await rt.server('fs').callTool('read_text_file', { path: join(dir, 'hello.txt') });
    expect(read.content).toEqual([{ type: 'text', text: 'hello from disk' }]);
    await rt.server('fs').callTool('write_file', { path: join(dir, 'new.txt'), content: 'written inside' });
    expect(await readFile(join(dir, 'new.txt'), 'utf8')).toBe('written inside');
    await rt.server('memory').callTool('create_entities', {
      entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
    });
    expect(await readFile(join(dir, 'memory.jsonl'), 'utf8')).toContain('"name":"Ada"');
  });
});

describe.skipIf(missingEngines('bwrap'))('an npx server sandboxed', () => {
  it('is installed before its sandbox closes, then runs from the cache with no network', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mcpkit-sandbox-npx-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const cache = join(root, 'npm-cache');
    const entry = {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory'],
      cwd: root,
      env: { npm_config_cache: cache, MEMORY_FILE_PATH: join(root, 'memory.jsonl') },
      sandbox: true,
      // The first start downloads the package from the registry: on a loaded machine that alone can take 30 s.
      startupTimeout: 100_000,
    };
    for (const round of ['first start: installs', 'second start: from the cache']) {
      const rt = await Runtime.create({
        servers: [{ name: 'npx-memory', entry }],
        env: { ...process.env, HOME: root },
      });
      try {
        const listed = await rt.server('npx-memory').listTools();
        expect(
          listed.map((tool) => tool.name),
          round,
        ).toContain('create_entities');
      } finally {
        await rt.close();
      }
    }
  }, 120_000);
});

describe.skipIf(missingEngines('bwrap'))('an npx server whose install outlasts its startup timeout', () => {
  it('says it was still installing, and leaves no npm behind', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mcpkit-sandbox-npx-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    // A registry that takes the connection and never answers.
    const sockets = new Set<Socket>();
    const registry = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          registry.close(() => resolve());
        }),
    );
    const port = (registry.address() as AddressInfo).port;
    const entry = {
      command: 'npx',
      args: ['-y', '@acme/slow'],
      cwd: root,
      env: { npm_config_cache: join(root, 'cache'), npm_config_registry: `http://127.0.0.1:${port}/` },
      sandbox: true,
      startupTimeout: 3000,
    };
    // The sandbox probe is done once per process: the start then reaches its install at once.
    await sandboxSupport();
    const started = Runtime.create({
      servers: [{ name: 'slow', entry }],
      env: { ...process.env, HOME: root },
    });
    await expect(started).rejects.toThrow(
      'server "slow" failed to start (timeout): still installing @acme/slow after 3000 ms (a first start downloads the package); raise "startupTimeout" in its entry, or run `npm exec --yes --package=@acme/slow -- node -e 0` once',
    );
    expect(await processesUnder(root)).toEqual([]);
  }, 60_000);
});

/** The pids of live processes working under `dir` (npm runs in its cache's directory). */
async function processesUnder(dir: string): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cwd = await readlink(`/proc/${name}/cwd`).catch(() => '');
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    if (cwd.startsWith(dir) && !/\) Z /.test(stat)) found.push(Number(name));
  }
  return found;
}

describe.skipIf(missingEngines('bwrap'))('an npx server that cannot be installed', () => {
  it('does not start, and says why in one line', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mcpkit-sandbox-npx-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const entry = {
      command: 'npx',
      args: ['-y', '@acme/ghost'],
      cwd: root,
      // A registry that refuses connections: no network needed to fail.
      env: {
        npm_config_cache: join(root, 'cache'),
        npm_config_registry: 'http://127.0.0.1:9/',
        npm_config_fetch_retries: '0',
      },
      sandbox: true,
    };
    await expect(
      Runtime.create({ servers: [{ name: 'ghost', entry }], env: { ...process.env, HOME: root } }),
    ).rejects.toThrow(
      'server "ghost" failed to start (spawn): cannot prepare the sandbox of "ghost": cannot install @acme/ghost (npm exec: FetchError: request to http://127.0.0.1:9/@acme%2fghost failed, reason: connect ECONNREFUSED 127.0.0.1:9)',
    );
  }, 60_000);
});
