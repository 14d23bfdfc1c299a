// Scale-out benchmark (docs/scale-out.md), every baseline measured in the same run:
// (a) what a replica pays to find a session it never saw: opening a sealed id vs one Redis GET (why
//     sessions are sealed, not looked up);
// (b) one replica, direct: p50 of a 2025-session tools/call with no shared state vs with --session-key and
//     --state redis:// (the SSE event store writes each event to Redis) — target: added <= 0.5 ms;
// (c) through nginx (scripts/cluster.mjs, round robin) with 1, 2 and 3 replicas sharing Redis: calls/s with
//     16 sessions in flight, and sequential p50. On 2 cores the replicas share the CPU: the ratio shows the
//     overhead of more processes, not a speed-up.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RedisState, SessionSeal } from '../src/serve/index.js';
import { startRedis } from '../test/helpers/redis.js';
import { median, sequentialP50 } from './measure.js';

const path = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const CLI = path('../dist/bin/main.js');
const CLUSTER = path('../scripts/cluster.mjs');
const CONTRACT = path('./fixtures/echo.yaml');
const VERSION = '2025-11-25';
const TOOL = 'echo__echo_inproc';

const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-scale-'));
const env = { PATH: process.env.PATH ?? '', HOME: dir, MCPKIT_CONFIG_DIR: join(dir, 'user') };
writeFileSync(
  join(dir, '.mcp.json'),
  JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [CLI, 'bridge', CONTRACT] } } }),
);
const keyFile = join(dir, 'session.key');
writeFileSync(keyFile, 'b'.repeat(64));
const redis = await startRedis();
const children: ChildProcess[] = [];

/**
 * A 2025 session over keep-alive HTTP: `call()` is one tools/call, its SSE answer read to the end. With
 * several URLs (replicas), the calls take them in turn.
 */
async function session(url: string | string[], agent: Agent) {
  const targets = (Array.isArray(url) ? url : [url]).map((u) => new URL(u));
  let turn = 0;
  const post = (body: unknown, headers: Record<string, string>) =>
    new Promise<{ text: string; headers: Record<string, unknown> }>((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = request(
        targets[turn++ % targets.length] as URL,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'content-length': Buffer.byteLength(text),
            ...headers,
          },
        },
        (res) => {
          let answer = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            answer += chunk;
          });
          res.on('end', () => resolve({ text: answer, headers: res.headers }));
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  const init = await post(
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    },
    {},
  );
  const headers = {
    'mcp-session-id': String(init.headers['mcp-session-id']),
    'mcp-protocol-version': VERSION,
  };
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  let id = 0;
  return async () => {
    const answer = await post(
      { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: TOOL, arguments: { text: 'hi' } } },
      headers,
    );
    if (!answer.text.includes('"result"')) throw new Error(`bad answer: ${answer.text}`);
  };
}

/** `mcpkit gateway -t http` with these flags; resolves its URL once it serves. */
function gateway(flags: string[]): Promise<string> {
  const child = spawn(process.execPath, [CLI, 'gateway', '-t', 'http', ...flags], {
    cwd: dir,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let seen = '';
  return new Promise((resolve) =>
    child.stderr?.on('data', (c: Buffer) => {
      seen += c.toString();
      const match = /serving on (\S+)/u.exec(seen);
      if (match?.[1]) resolve(match[1]);
    }),
  );
}

function cluster(
  replicas: number,
): Promise<{ url: string; child: ChildProcess; replicas: { url: string }[] }> {
  const child = spawn(process.execPath, [CLUSTER, '--replicas', String(replicas), '--redis-url', redis.url], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.push(child);
  let out = '';
  return new Promise((resolve) =>
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (!out.includes('\n')) return;
      const info = JSON.parse(out.split('\n')[0] as string) as { url: string; replicas: { url: string }[] };
      resolve({ url: info.url, replicas: info.replicas, child });
    }),
  );
}

const stopped = (child: ChildProcess) =>
  new Promise<void>((done) => {
    if (child.exitCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });

async function throughput(url: string, sessions: number, perSession: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: sessions });
  const calls = await Promise.all(Array.from({ length: sessions }, () => session(url, agent)));
  for (const call of calls) for (let i = 0; i < 20; i++) await call();
  const t = performance.now();
  await Promise.all(
    calls.map(async (call) => {
      for (let i = 0; i < perSession; i++) await call();
    }),
  );
  agent.destroy();
  return (sessions * perSession) / ((performance.now() - t) / 1000);
}

try {
  // (a) Finding a session: a sealed id opened vs a Redis round trip.
  const seal = new SessionSeal('b'.repeat(64));
  const id = seal.seal({
    protocolVersion: VERSION,
    capabilities: { roots: {} },
    clientInfo: { name: 'bench', version: '1' },
  });
  const opens: number[] = [];
  for (let i = 0; i < 20_000; i++) {
    const t = performance.now();
    seal.open(id);
    opens.push(performance.now() - t);
  }
  const state = await RedisState.connect(redis.url);
  await state.redis.sendCommand(['SET', 'bench:session', id]);
  const gets: number[] = [];
  for (let i = 0; i < 5_000; i++) {
    const t = performance.now();
    await state.redis.sendCommand(['GET', 'bench:session']);
    gets.push(performance.now() - t);
  }
  await state.close();
  console.log(
    `(a) find a session: open a sealed id (${id.length} chars) p50 ${(median(opens) * 1000).toFixed(1)} µs; ` +
      `one Redis GET on loopback p50 ${(median(gets) * 1000).toFixed(1)} µs`,
  );

  // (b) One replica, direct: no shared state vs sealed ids + Redis event store, alternating rounds.
  const plain = await gateway([]);
  const shared = await gateway(['--session-key', keyFile, '--state', redis.url]);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const plainCall = await session(plain, agent);
  const sharedCall = await session(shared, agent);
  const sealedOnly = await gateway(['--session-key', keyFile]);
  const sealedCall = await session(sealedOnly, agent);
  // Call by call in turn, so the machine's load falls on the three alike.
  const times = { plain: [] as number[], sealed: [] as number[], shared: [] as number[] };
  const timed = async (call: () => Promise<void>, into: number[]) => {
    const t = performance.now();
    await call();
    into.push(performance.now() - t);
  };
  for (let i = 0; i < 4500; i++) {
    await timed(plainCall, times.plain);
    await timed(sealedCall, times.sealed);
    await timed(sharedCall, times.shared);
  }
  const [p, k, s] = [times.plain, times.sealed, times.shared].map((xs) => median(xs.slice(300))) as [
    number,
    number,
    number,
  ];
  console.log(
    `(b) 2025-session tools/call p50, one replica: no shared state ${p.toFixed(3)} ms; sealed ids only ${k.toFixed(3)} ms ` +
      `(+${(k - p).toFixed(3)}); sealed + Redis events ${s.toFixed(3)} ms (+${(s - p).toFixed(3)} ms, target <= +0.5)`,
  );
  agent.destroy();
  for (const child of children.splice(0)) await stopped(child);

  // (c) Through nginx with 1, 2, 3 replicas.
  const direct = await gateway([]);
  const baseline = await throughput(direct, 16, 150);
  for (const child of children.splice(0)) await stopped(child);
  const rows: string[] = [];
  for (const replicas of [1, 2, 3]) {
    const { url, child, replicas: members } = await cluster(replicas);
    const perSec = await throughput(url, 16, 150);
    const seqAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const p50 = await sequentialP50(await session(url, seqAgent), 1000);
    // One session, the client itself taking the replicas in turn (no nginx): what going round costs.
    const own = await sequentialP50(
      await session(
        members.map((m) => m.url),
        seqAgent,
      ),
      1000,
    );
    seqAgent.destroy();
    rows.push(
      `${replicas} replica${replicas === 1 ? '' : 's'}: ${perSec.toFixed(0)} calls/s (${(perSec / baseline).toFixed(2)}x), ` +
        `p50 ${p50.toFixed(3)} ms (replicas in turn without nginx: ${own.toFixed(3)} ms)`,
    );
    await stopped(child);
    children.splice(children.indexOf(child), 1);
  }
  console.log(
    `(c) through nginx, 16 sessions in flight (one replica direct, no shared state: ${baseline.toFixed(0)} calls/s): ${rows.join('; ')}`,
  );
} finally {
  for (const child of children) await stopped(child);
  await redis.close();
  rmSync(dir, { recursive: true, force: true });
}
