// Client runtime benchmark: the Runtime against a bare SDK Client on the same server, measured in the
// same run. Prints ratios; the issue's targets are ≤ 1.05 for calls and ≤ 1.5 for connecting 10 vs 1.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Runtime } from '../src/client/index.js';
import { burstMs, median, sequentialP50 as sequentialP50Of } from './measure.js';

const server = fileURLToPath(new URL('../test/fixtures/servers/raw-server.mjs', import.meta.url));
const entry = { command: process.execPath, args: [server] };
const SEQUENTIAL = 2000;
const CONCURRENT = 2000;
const ROUNDS = 7;

const warnings: string[] = [];
process.on('warning', (w) => warnings.push(`${w.name}: ${w.message}`));
let unhandled = 0;
process.on('unhandledRejection', () => unhandled++);

type Call = () => Promise<unknown>;
const args = { name: 'progress', arguments: { count: 0 } };

async function bareClient(): Promise<{ call: Call; close: () => Promise<void> }> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StdioClientTransport({ command: entry.command, args: entry.args, stderr: 'ignore' }),
  );
  return { call: () => client.callTool(args), close: () => client.close() };
}

async function runtimeClient(): Promise<{ call: Call; close: () => Promise<void> }> {
  const runtime = await Runtime.create({ servers: [{ name: 'raw', entry }] });
  const s = runtime.server('raw');
  return { call: () => s.callTool('progress', { count: 0 }), close: () => runtime.close() };
}

const sequentialP50 = (call: Call) => sequentialP50Of(call, SEQUENTIAL);
const concurrentMs = (call: Call) => burstMs(call, CONCURRENT);

const warningsBy = { bare: 0, rt: 0 };
async function measureCalls(
  kind: 'bare' | 'rt',
  make: () => Promise<{ call: Call; close: () => Promise<void> }>,
) {
  const before = warnings.length;
  const session = await make();
  try {
    return { p50: await sequentialP50(session.call), burst: await concurrentMs(session.call) };
  } finally {
    await session.close();
    warningsBy[kind] += warnings.length - before;
  }
}

const shServer = fileURLToPath(new URL('./fixtures/sh-server.sh', import.meta.url));
const connectEntries = {
  'node server (CPU-bound boot)': entry,
  'sh server (spawn-bound)': { command: 'sh', args: [shServer] },
  'sh server, 100 ms I/O before ready': { command: 'sh', args: [shServer], env: { START_DELAY: '0.1' } },
};

async function connectMs(count: number, server: typeof entry): Promise<number> {
  const servers = Array.from({ length: count }, (_, i) => ({ name: `s${i}`, entry: server }));
  const t = performance.now();
  const runtime = await Runtime.create({ servers });
  const elapsed = performance.now() - t;
  await runtime.close();
  return elapsed;
}

const fmt = (n: number) => n.toFixed(3);
const results = { bare: [] as { p50: number; burst: number }[], rt: [] as { p50: number; burst: number }[] };
// Interleave the two so drift on the machine hits both alike.
for (let round = 0; round < ROUNDS; round++) {
  results.bare.push(await measureCalls('bare', bareClient));
  results.rt.push(await measureCalls('rt', runtimeClient));
}
const bareP50 = median(results.bare.map((r) => r.p50));
const rtP50 = median(results.rt.map((r) => r.p50));
const bareBurst = median(results.bare.map((r) => r.burst));
const rtBurst = median(results.rt.map((r) => r.burst));

/** The floor: spawning N bare `sh` processes that exit at once, no MCP at all. */
async function bareSpawnMs(count: number): Promise<number> {
  const t = performance.now();
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve) =>
          spawn('sh', ['-c', 'exit 0'], { stdio: 'ignore' }).on('exit', () => resolve()),
        ),
    ),
  );
  return performance.now() - t;
}

const connects: [string, number, number][] = [];
{
  const one: number[] = [];
  const ten: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    one.push(await bareSpawnMs(1));
    ten.push(await bareSpawnMs(10));
  }
  connects.push(['baseline: bare spawn of sh, no MCP', median(one), median(ten)]);
}
for (const [label, server] of Object.entries(connectEntries)) {
  const one: number[] = [];
  const ten: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    one.push(await connectMs(1, server));
    ten.push(await connectMs(10, server));
  }
  connects.push([label, median(one), median(ten)]);
}

console.log('client runtime vs bare SDK Client (same stdio server, same run; medians of %d rounds)', ROUNDS);
console.log(
  `  sequential callTool p50   bare ${fmt(bareP50)} ms   runtime ${fmt(rtP50)} ms   ratio ${(rtP50 / bareP50).toFixed(3)}  (target <= 1.05)`,
);
console.log(
  `  ${CONCURRENT} concurrent calls    bare ${bareBurst.toFixed(1)} ms   runtime ${rtBurst.toFixed(1)} ms   ratio ${(rtBurst / bareBurst).toFixed(3)}  (target <= 1.05)`,
);
for (const [label, one, ten] of connects) {
  console.log(
    `  connect 1 vs 10, ${label}: ${one.toFixed(1)} ms vs ${ten.toFixed(1)} ms   ratio ${(ten / one).toFixed(3)}  (target <= 1.5)`,
  );
}
console.log(
  `  warnings during runtime calls: ${warningsBy.rt}; during bare SDK calls: ${warningsBy.bare}${warnings[0] ? ` (${warnings[0]})` : ''}; unhandled rejections: ${unhandled}`,
);
