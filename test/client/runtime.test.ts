import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Runtime, type RuntimeEventMap, ServerStartError } from '../../src/client/index.js';
import { eventually } from '../helpers/eventually.js';
import { runtimesForEachTest } from '../helpers/runtimes.js';
import {
  alive,
  everything,
  filesystem,
  fixture,
  memory,
  rawServer,
  wrappedRawServer,
} from '../helpers/servers.js';

const { cleanups, runtime } = runtimesForEachTest();

function record<K extends keyof RuntimeEventMap>(rt: Runtime, name: K): RuntimeEventMap[K][0][] {
  const seen: RuntimeEventMap[K][0][] = [];
  rt.on(name, ((payload: RuntimeEventMap[K][0]) => seen.push(payload)) as never);
  return seen;
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcpkit-rt-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function pidsOf(file: string): Promise<number[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map(Number);
}

describe('Runtime with the reference servers', () => {
  it('connects everything, memory and filesystem in parallel and uses each', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'hello.txt'), 'hello from disk');
    const rt = await runtime({
      servers: [
        { name: 'everything', entry: everything },
        { name: 'memory', entry: memory },
        { name: 'fs', entry: filesystem(dir) },
      ],
    });
    expect(rt.servers().map((s) => [s.id, s.status, s.protocolVersion])).toEqual([
      ['everything', 'ready', '2025-11-25'],
      ['memory', 'ready', '2025-11-25'],
      ['fs', 'ready', '2025-11-25'],
    ]);
    expect(rt.server('everything').serverInfo?.name).toBe('mcp-servers/everything');

    const echo = await rt.server('everything').callTool('echo', { message: 'hi' });
    expect(echo).toEqual({ content: [{ type: 'text', text: 'Echo: hi' }] });

    const read = await rt.server('fs').callTool('read_text_file', { path: join(dir, 'hello.txt') });
    expect(JSON.stringify(read.content)).toContain('hello from disk');

    await rt.server('memory').callTool('create_entities', {
      entities: [{ name: 'mcpkit', entityType: 'project', observations: ['drives many servers'] }],
    });
    const graph = await rt.server('memory').callTool('read_graph', {});
    expect(JSON.stringify(graph.structuredContent ?? graph.content)).toContain('drives many servers');

    const registry = await rt.tools();
    expect(registry.resolve('mcp__fs__read_text_file')).toEqual({ server: 'fs', tool: 'read_text_file' });
    expect(registry.list().every((t) => /^[A-Za-z0-9_-]{1,64}$/.test(t.name))).toBe(true);
  });

  it('reports progress, lists every page of resources and renders prompts', async () => {
    const rt = await runtime({ servers: [{ name: 'ev', entry: everything }] });
    const events = record(rt, 'progress');
    const updates: number[] = [];
    await rt
      .server('ev')
      .callTool(
        'trigger-long-running-operation',
        { duration: 1, steps: 4 },
        { onProgress: (u) => updates.push(u.progress) },
      );
    expect(updates).toEqual([1, 2, 3, 4]);
    expect(events.map((e) => e.progress)).toEqual([1, 2, 3, 4]);

    const resources = await rt.server('ev').listResources();
    expect(resources.length).toBeGreaterThan(0);
    const read = await rt.server('ev').readResource(resources[0]?.uri as string);
    expect(read.contents[0]?.uri).toBe(resources[0]?.uri);
    const templates = await rt.server('ev').listResourceTemplates();
    expect(templates.map((t) => t.uriTemplate)).toContain('demo://resource/dynamic/text/{resourceId}');

    const prompts = await rt.server('ev').listPrompts();
    expect(prompts.map((p) => p.name)).toContain('args-prompt');
    const prompt = await rt.server('ev').getPrompt('args-prompt', { city: 'Paris' });
    expect(JSON.stringify(prompt.messages)).toContain('Paris');
    expect(await rt.server('ev').ping()).toBeGreaterThan(0);

    await rt.server('ev').setLogLevel('debug');
    const completion = await rt.server('ev').complete({
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: 'Eng' },
    });
    expect(completion.completion.values).toContain('Engineering');
  });

  it('cancels a call: the signal rejects at once and the server gets notifications/cancelled', async () => {
    const rt = await runtime({ servers: [{ name: 'raw', entry: rawServer() }] });
    const stderr = record(rt, 'stderr');
    const controller = new AbortController();
    const call = rt.server('raw').callTool('hang', {}, { signal: controller.signal });
    await eventually(() => (stderr.some((e) => e.line.startsWith('hanging')) ? true : undefined));
    controller.abort();
    await expect(call).rejects.toThrow();
    await eventually(() => (stderr.some((e) => /^cancelled \d+$/.test(e.line)) ? true : undefined));
  });

  it('delivers every progress notification that arrives with its response, over 100 calls', async () => {
    const rt = await runtime({ servers: [{ name: 'raw', entry: rawServer() }] });
    const counts: number[] = [];
    for (let i = 0; i < 100; i++) {
      let seen = 0;
      await rt.server('raw').callTool('progress', { count: 3 }, { onProgress: () => seen++ });
      counts.push(seen);
    }
    expect(counts).toEqual(Array(100).fill(3));
  });

  it('refreshes on tools/list_changed and emits list_changed', async () => {
    const rt = await runtime({ servers: [{ name: 'raw', entry: rawServer() }] });
    const changes = record(rt, 'list_changed');
    expect((await rt.server('raw').listTools()).map((t) => t.name)).not.toContain('added-5');
    await rt.server('raw').callTool('add-tool', {});
    await eventually(() => (changes.length > 0 ? true : undefined));
    expect(changes).toEqual([{ server: 'raw', list: 'tools' }]);
    expect(rt.server('raw').cachedTools).toBeUndefined();
    expect((await rt.server('raw').listTools()).map((t) => t.name)).toContain('added-5');
  });

  it('applies includeTools / excludeTools (exclude wins)', async () => {
    const rt = await runtime({
      servers: [
        { name: 'raw', entry: { ...rawServer(), includeTools: ['env', 'crash'], excludeTools: ['crash'] } },
      ],
    });
    expect((await rt.server('raw').listTools()).map((t) => t.name)).toEqual(['env']);
    await expect(rt.server('raw').callTool('crash')).rejects.toMatchObject({ code: 'TOOL_NOT_ALLOWED' });
  });

  it('passes the safe environment plus proxies/CA/locale, the entry env on top, all with inheritEnv', async () => {
    const env = {
      PATH: process.env.PATH,
      HOME: '/h',
      HTTPS_PROXY: 'http://proxy:3128',
      LC_ALL: 'C',
      SECRET: 's',
    };
    const rt = await runtime({
      env,
      servers: [
        { name: 'safe', entry: { ...rawServer(), env: { EXTRA: '1', HOME: '/override' } } },
        { name: 'all', entry: { ...rawServer(), inheritEnv: true } },
      ],
    });
    const envOf = async (id: string) => {
      const result = await rt.server(id).callTool('env');
      return JSON.parse((result.content[0] as { text: string }).text) as Record<string, string>;
    };
    const safe = await envOf('safe');
    expect(safe).toMatchObject({
      HTTPS_PROXY: 'http://proxy:3128',
      LC_ALL: 'C',
      EXTRA: '1',
      HOME: '/override',
    });
    expect(safe.SECRET).toBeUndefined();
    expect((await envOf('all')).SECRET).toBe('s');
  });
});

describe('Runtime protocol generations', () => {
  it('negotiates 2026-07-28 with an SDK v2 server and 2025-11-25 with a 2025 one, side by side', async () => {
    const modern = { command: process.execPath, args: [fixture('servers/modern-server.mjs')] };
    const rt = await runtime({
      servers: [
        { name: 'modern', entry: modern },
        { name: 'old', entry: rawServer() },
      ],
    });
    expect(rt.server('modern').protocolVersion).toBe('2026-07-28');
    expect(rt.server('modern').serverInfo).toEqual({ name: 'modern-server', version: '2.0.0' });
    expect(rt.server('old').protocolVersion).toBe('2025-11-25');
    const greeting = await rt.server('modern').callTool('greet', { name: 'Ada' });
    expect(greeting.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
  });

  it("reads a 2026-07-28 stdio server's result without resultType as complete, a list without cache hints as uncacheable", async () => {
    // As the conformance suite's reference server answers: the SDK client alone refuses such a result.
    const omits = { command: process.execPath, args: [fixture('servers/omits-result-type-server.mjs')] };
    const rt = await runtime({ servers: [{ name: 'omits', entry: omits }] });
    expect(rt.server('omits').protocolVersion).toBe('2026-07-28');
    expect((await rt.server('omits').listTools()).map((tool) => tool.name)).toEqual(['echo']);
    const echoed = await rt.server('omits').callTool('echo', { text: 'hi' });
    expect(echoed.content).toEqual([{ type: 'text', text: 'echo: hi' }]);
    expect(echoed.isError).toBeUndefined();
  });
});

describe('Runtime failures', () => {
  it('fails in-flight calls at once when a server crashes, and keeps running', async () => {
    const rt = await runtime({
      servers: [
        { name: 'raw', entry: rawServer() },
        { name: 'ok', entry: rawServer() },
      ],
    });
    const failures = record(rt, 'server_failed');
    const hanging = rt.server('raw').callTool('hang');
    const started = Date.now();
    await expect(rt.server('raw').callTool('crash')).rejects.toMatchObject({ code: 'SERVER_UNAVAILABLE' });
    await expect(hanging).rejects.toThrow(/connection closed; last stderr: hanging \d+ \| about to crash/);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(failures).toEqual([
      {
        server: 'raw',
        category: 'transport_closed',
        // The server's last stderr lines: the hang it was serving, then why it went.
        message: expect.stringMatching(/^connection closed; last stderr: hanging \d+ \| about to crash$/),
      },
    ]);
    expect(rt.server('raw').status).toBe('failed');
    await expect(rt.server('raw').callTool('env')).rejects.toThrow('server "raw" is failed');
    expect((await rt.server('ok').callTool('progress', { count: 1 })).content).toEqual([
      { type: 'text', text: 'sent 1' },
    ]);
  });

  it('an answer over 16 MiB fails its call at once with the reason, in either key order; the server serves on', async () => {
    const rt = await runtime({ servers: [{ name: 'raw', entry: rawServer() }], requestTimeoutMs: 600_000 });
    for (const python of [false, true]) {
      await expect(rt.server('raw').callTool('huge', { python })).rejects.toThrow(
        "the server's answer is 17.0 MiB, longer than the 16 MiB mcpkit reads from a stdio server",
      );
    }
    expect((await rt.server('raw').callTool('progress', { count: 1 })).content).toEqual([
      { type: 'text', text: 'sent 1' },
    ]);
    expect(rt.server('raw').status).toBe('ready');
  });

  it('fail-fast: a startup timeout rejects naming the server, and the others are stopped', async () => {
    const dir = await tempDir();
    const pidFile = join(dir, 'pids');
    // Only the silent one has the short timeout: on a loaded machine the good one may take longer than it.
    const silent = {
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1000)'],
      startupTimeout: 500,
    };
    const error = await Runtime.create({
      servers: [
        { name: 'good', entry: rawServer('--pid-file', pidFile) },
        { name: 'silent', entry: silent },
      ],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerStartError);
    expect((error as ServerStartError).message).toBe(
      'server "silent" failed to start (timeout): no handshake within 500 ms',
    );
    const [pid] = await pidsOf(pidFile);
    expect(pid !== undefined && alive(pid)).toBe(false);
  });

  it('log-and-continue: failures become events with a category; the rest run', async () => {
    const failures: RuntimeEventMap['server_failed'][0][] = [];
    const rt = await Runtime.create({
      startupPolicy: 'log-and-continue',
      startupTimeoutMs: 500,
      env: { PATH: process.env.PATH },
      servers: [
        { name: 'ok', entry: rawServer() },
        { name: 'nocmd', entry: { command: 'mcpkit-no-such-command-xyz' } },
        { name: 'novar', entry: { command: '${MISSING_BIN}' } },
        { name: 'silent', entry: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } },
      ],
    });
    cleanups.push(() => rt.close());
    for (const s of rt.servers()) if (s.failure) failures.push({ server: s.id, ...s.failure });
    expect(rt.servers().map((s) => [s.id, s.status])).toEqual([
      ['ok', 'ready'],
      ['nocmd', 'failed'],
      ['novar', 'failed'],
      ['silent', 'failed'],
    ]);
    expect(failures.map((f) => [f.server, f.category])).toEqual([
      ['nocmd', 'spawn'],
      ['novar', 'config'],
      ['silent', 'timeout'],
    ]);
    expect(failures[0]?.message).toContain(
      'cannot start "mcpkit-no-such-command-xyz": not found (is it installed and on PATH?)',
    );
    expect(failures[1]?.message).toContain('environment variable MISSING_BIN (in command) is not set');
  });

  it('starts a server that dies on a pre-initialize probe with one more process, going straight to initialize', async () => {
    const dir = await tempDir();
    const pidFile = join(dir, 'pids');
    const rt = await runtime({
      servers: [{ name: 'old', entry: rawServer('--exit-on-probe', '--pid-file', pidFile) }],
    });
    expect(rt.server('old').status).toBe('ready');
    expect(await pidsOf(pidFile)).toHaveLength(2);
  });

  it('spawns a well-behaved stdio server exactly once', async () => {
    const dir = await tempDir();
    const pidFile = join(dir, 'pids');
    await runtime({ servers: [{ name: 'raw', entry: rawServer('--pid-file', pidFile) }] });
    expect(await pidsOf(pidFile)).toHaveLength(1);
  });
});

describe('Runtime lifecycle', () => {
  it('hot-adds and removes servers; duplicate names get -1, -2', async () => {
    const rt = await runtime({
      servers: [
        { name: 'a', entry: rawServer() },
        { name: 'a', entry: rawServer() },
      ],
    });
    const started = record(rt, 'server_started');
    const stopped = record(rt, 'server_stopped');
    expect(rt.servers().map((s) => s.id)).toEqual(['a', 'a-1']);
    const added = await rt.add({ name: 'a', entry: rawServer() });
    expect([added.id, added.status]).toEqual(['a-2', 'ready']);
    expect(started.map((e) => e.server)).toEqual(['a-2']);
    await rt.remove('a-1');
    expect(stopped).toEqual([{ server: 'a-1' }]);
    expect(rt.servers().map((s) => s.id)).toEqual(['a', 'a-2']);
    expect(() => rt.server('a-1')).toThrow('no server "a-1" in this runtime (servers: a, a-2)');
  });

  it('leaves no process behind after close(), including a wrapper and its grandchildren', async () => {
    const dir = await tempDir();
    const pidFile = join(dir, 'pids');
    const rt = await Runtime.create({
      servers: [{ name: 'w', entry: wrappedRawServer('--sleeper', '--pid-file', pidFile) }],
    });
    const pids = await pidsOf(pidFile);
    expect(pids).toHaveLength(2);
    expect(pids.every(alive)).toBe(true);
    await rt.close();
    await rt.close(); // idempotent
    expect(pids.filter(alive)).toEqual([]);
    expect(rt.servers().map((s) => s.status)).toEqual(['stopped']);
  }, 15_000);

  it('ignores disabled entries', async () => {
    const rt = await runtime({ servers: [{ name: 'off', entry: { ...rawServer(), disabled: true } }] });
    expect(rt.servers()).toEqual([]);
  });
});
