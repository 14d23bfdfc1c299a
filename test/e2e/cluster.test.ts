import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcessAt } from '../config/run-in-process.js';
import { createWorkspace, type Workspace } from '../helpers/cli.js';
import { hasEngine, missingEngines } from '../helpers/engines.js';
import { eventually } from '../helpers/eventually.js';
import { processState } from '../helpers/process-table.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';
import { everything } from '../helpers/servers.js';
import { sseEvents } from '../helpers/sse.js';

// The cluster walkthrough of docs/scale-out.md, as a user runs it: scripts/cluster.mjs starts nginx (round
// robin, no affinity) in front of 3 gateway replicas sharing a session key and Redis; clients see one gateway.
const SCRIPT = fileURLToPath(new URL('../../scripts/cluster.mjs', import.meta.url));
const noEngines = missingEngines('redis', 'nginx');
const withoutPostgres = !noEngines && missingEngines('postgres');
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const VERSION = '2025-11-25';

interface ClusterInfo {
  url: string;
  dir: string;
  nginx: { pid: number; port: number };
  postgres: { pid: number; url: string } | null;
  replicas: { pid: number; port: number; url: string }[];
}

/** tools/list on one replica, in a session of its own: the exposed tool names. */
async function toolNames(url: string): Promise<string[]> {
  const client = new Client({ name: 'cluster-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

describe.skipIf(noEngines)('scripts/cluster.mjs: nginx + 3 gateway replicas + Redis', () => {
  let ws: Workspace;
  let redis: RedisServer;
  let cluster: ChildProcess;
  let info: ClusterInfo;
  let clusterLog = '';

  beforeAll(async () => {
    ws = await createWorkspace();
    redis = await startRedis();
    await writeFile(
      `${ws.project}/.mcp.json`,
      JSON.stringify({ mcpServers: { everything: { command: everything.command, args: everything.args } } }),
    );
    // With PostgreSQL there, the cluster's shared code index too (--postgres): this file is what it finds.
    await writeFile(
      `${ws.project}/billing.ts`,
      'export function chargeCard(amount: number) {\n  return amount;\n}\n',
    );
    // A pin taken from an older definition of `echo`: with --pin strict every replica hides the tool.
    const cli = (...args: string[]) => spawnSync('redis-cli', ['-p', String(redis.port), ...args]);
    cli('HSET', 'mcpkit:pins:everything', 'echo', JSON.stringify({ hash: 'old', pinnedAt: '2026-01-01' }));
    cli('SADD', 'mcpkit:pins', 'everything');
    cluster = spawn(
      process.execPath,
      [
        SCRIPT,
        '--replicas',
        '3',
        '--redis-url',
        redis.url,
        ...(hasEngine('postgres') ? ['--postgres'] : []),
        '--',
        '--pin',
        'strict',
      ],
      {
        cwd: ws.project,
        env: { ...process.env, ...ws.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    cluster.stderr?.on('data', (chunk: Buffer) => {
      clusterLog += chunk.toString();
    });
    let out = '';
    info = await new Promise<ClusterInfo>((resolve, reject) => {
      cluster.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0] as string) as ClusterInfo);
      });
      cluster.once('exit', (code) => reject(new Error(`cluster exited (${code}): ${clusterLog}`)));
    });
  }, 120_000);

  afterAll(async () => {
    if (cluster && cluster.exitCode === null) {
      const gone = new Promise((done) => cluster.once('exit', done));
      cluster.kill('SIGKILL');
      await gone;
      for (const r of info?.replicas ?? []) if (processState(r.pid)) process.kill(r.pid, 'SIGKILL');
      if (info && processState(info.nginx.pid)) process.kill(info.nginx.pid, 'SIGKILL');
      if (info?.postgres && processState(info.postgres.pid)) process.kill(info.postgres.pid, 'SIGINT');
    }
    await redis?.close();
    await ws?.cleanup();
  });

  it('every replica is healthy and ready; nginx answers /readyz', async () => {
    for (const r of info.replicas) {
      const res = await fetch(`http://127.0.0.1:${r.port}/readyz`);
      expect([res.status, await res.text()]).toEqual([200, 'ready\n']);
    }
    expect((await fetch(info.url.replace('/mcp', '/healthz'))).status).toBe(200);
  });

  it.skipIf(withoutPostgres)(
    'every replica searches the one code index in PostgreSQL (--postgres)',
    async () => {
      expect(info.postgres?.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/u);
      for (const r of info.replicas) {
        const client = new Client({ name: 'cluster-test', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(r.url)));
        try {
          const found = await client.callTool({
            name: 'search__search',
            arguments: { query: 'chargeCard', top_k: 1 },
          });
          const text = (found.content as { text?: string }[]).map((c) => c.text ?? '').join('');
          expect(text).toContain('1. billing.ts:1-3');
        } finally {
          await client.close();
        }
      }
    },
  );

  it('a pin trusted once (`mcpkit trust --state`) is honoured by every replica', async () => {
    for (const r of info.replicas) expect(await toolNames(r.url)).not.toContain('everything__echo');
    const trusted = await runInProcessAt(['trust', 'everything', '--state', redis.url], ws.project, ws.env);
    expect(trusted.stderr).toBe('');
    expect(trusted.stdout).toMatch(/^trusted \d+ tools of everything \(1 changed since pinned\)\n$/u);
    for (const r of info.replicas)
      await eventually(async () =>
        (await toolNames(r.url)).includes('everything__echo') ? true : undefined,
      );
  }, 120_000);

  it('a 2025 session through nginx round-robins over the 3 replicas, and outlives a SIGKILLed one', async () => {
    const client = new Client({ name: 'cluster-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(info.url)));
    const echo = async (text: string) => {
      const result = await client.callTool({ name: 'everything__echo', arguments: { message: text } });
      return (result.content as { text: string }[])[0]?.text;
    };
    const before = (await readFile(`${info.dir}/access.log`, 'utf8')).split('\n').length;
    for (let i = 0; i < 6; i++) expect(await echo(`hi ${i}`)).toBe(`Echo: hi ${i}`);
    const served = (await readFile(`${info.dir}/access.log`, 'utf8'))
      .split('\n')
      .slice(before - 1)
      .filter((line) => line.startsWith('POST 200'))
      .map((line) => line.split(' ')[2]);
    expect(new Set(served)).toEqual(new Set(info.replicas.map((r) => `127.0.0.1:${r.port}`)));

    const victim = info.replicas[0] as { pid: number };
    process.kill(victim.pid, 'SIGKILL');
    await eventually(() => (processState(victim.pid) === undefined ? true : undefined));
    for (let i = 0; i < 6; i++) expect(await echo(`after ${i}`)).toBe(`Echo: after ${i}`);
    await eventually(() =>
      clusterLog.includes(`replica on port ${info.replicas[0]?.port} exited`) ? true : undefined,
    );
    await client.close();
  }, 60_000);

  it('an SSE stream cut on one replica is resumed on another with Last-Event-ID', async () => {
    const [, second, third] = info.replicas as { url: string }[];
    const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) });
    const init = await post(info.url, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'resume', version: '1' } },
    });
    await init.text();
    const session = {
      'mcp-session-id': init.headers.get('mcp-session-id') ?? '',
      'mcp-protocol-version': VERSION,
    };
    await (await post(info.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
    const call = await post(
      second?.url as string,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'everything__trigger-long-running-operation',
          arguments: { duration: 2, steps: 5 },
          _meta: { progressToken: 'p' },
        },
      },
      session,
    );
    const reader = call.body?.getReader();
    if (!reader) throw new Error(`no stream: HTTP ${call.status}`);
    const decoder = new TextDecoder();
    let seen = '';
    while (!seen.includes('"progress":1')) seen += decoder.decode((await reader.read()).value);
    await reader.cancel(); // the connection drops after the first step
    const last = sseEvents(seen)
      .filter((e) => e.id)
      .at(-1)?.id as string;
    const resumed = await eventually(async () => {
      const response = await fetch(third?.url as string, {
        headers: { ...session, accept: 'text/event-stream', 'last-event-id': last },
      });
      const text = await response.text();
      return text.includes('Long running operation completed') ? text : undefined;
    });
    const got = sseEvents(resumed).map((e) => e.data);
    const progress = got
      .map((d) => (d?.params as { progress?: number } | undefined)?.progress)
      .filter(Boolean);
    expect(progress).toEqual([2, 3, 4, 5]);
    expect(got.at(-1)?.id).toBe(1);
  }, 60_000);

  it('SIGTERM stops the cluster: replicas drained, nginx and PostgreSQL gone, its dir removed', async () => {
    const exited = new Promise<number | null>((done) => cluster.once('exit', (code) => done(code)));
    cluster.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const r of info.replicas) expect(processState(r.pid)).toBeUndefined();
    expect(processState(info.nginx.pid)).toBeUndefined();
    if (info.postgres) expect(processState(info.postgres.pid)).toBeUndefined();
    expect(existsSync(info.dir)).toBe(false);
  }, 60_000);
});
