// Sandbox benchmark: the same stdio server started and called unsandboxed and in its sandbox (bubblewrap,
// default profile), measured in the same run, and the network proxy's throughput on a 10 MB download
// against a direct download of the same bytes. Goals (issue 30): ≤ +50 ms to start, ≤ +5 % per call.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Runtime } from '../src/client/index.js';
import type { SandboxSetting } from '../src/config/index.js';
import { spawnGroup, stopGroup } from '../src/internal/process-group.js';
import { prepareSandbox, sandboxSupport, startNetworkProxy } from '../src/sandbox/index.js';
import { median, sequentialP50 } from './measure.js';

const server = fileURLToPath(new URL('../test/fixtures/servers/raw-server.mjs', import.meta.url));
const START_ROUNDS = 15;
const CALLS = 2000;

const support = await sandboxSupport();
if (!support.ok) {
  console.log(`sandbox bench skipped: ${support.reason}`);
  process.exit(0);
}

async function startMs(sandbox: SandboxSetting): Promise<number> {
  const started = performance.now();
  const rt = await Runtime.create({
    servers: [{ name: 'raw', entry: { command: process.execPath, args: [server], sandbox } }],
  });
  const ms = performance.now() - started;
  await rt.close();
  return ms;
}

async function callP50(sandbox: SandboxSetting): Promise<number> {
  const rt = await Runtime.create({
    servers: [{ name: 'raw', entry: { command: process.execPath, args: [server], sandbox } }],
  });
  try {
    const s = rt.server('raw');
    return await sequentialP50(() => s.callTool('progress', { count: 0 }), CALLS);
  } finally {
    await rt.close();
  }
}

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
})}\n`;

/** Spawn (and the sandbox's set-up) to the server's answer to initialize, without the Runtime around it. */
async function firstAnswerMs(sandbox: boolean): Promise<number> {
  const started = performance.now();
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  const launch = sandbox
    ? await prepareSandbox({
        setting: true,
        command: process.execPath,
        args: [server],
        cwd: process.cwd(),
        env,
      })
    : undefined;
  const child = spawnGroup(launch?.command ?? process.execPath, launch?.args ?? [server], {
    env: launch?.env ?? env,
  });
  child.stdin.write(INITIALIZE);
  await new Promise((resolve) => child.stdout.once('data', resolve));
  const ms = performance.now() - started;
  await stopGroup(child);
  await launch?.dispose();
  return ms;
}

const answers = { off: [] as number[], on: [] as number[] };
for (let i = 0; i < 25; i++) {
  answers.off.push(await firstAnswerMs(false));
  answers.on.push(await firstAnswerMs(true));
}

// Alternate the two kinds so a loaded machine slows both alike.
const starts = { off: [] as number[], on: [] as number[] };
await startMs(false);
await startMs(true);
for (let i = 0; i < START_ROUNDS; i++) {
  starts.off.push(await startMs(false));
  starts.on.push(await startMs(true));
}
const startOff = median(starts.off);
const startOn = median(starts.on);
const callOff = median([await callP50(false), await callP50(false), await callP50(false)]);
const callOn = median([await callP50(true), await callP50(true), await callP50(true)]);

// The proxy: 10 MB from a loopback HTTP server, directly and through CONNECT over the proxy's Unix socket.
const SIZE = 10 * 1024 * 1024;
const payload = Buffer.alloc(SIZE, 7);
const origin = createServer((_req, res) => res.end(payload));
await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
const port = (origin.address() as AddressInfo).port;
const dir = await mkdtemp(join(tmpdir(), 'mcpkit-bench-proxy-'));
const proxy = await startNetworkProxy(join(dir, 'proxy.sock'), { allow: ['localhost'] });

function download(viaProxy: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = viaProxy ? connect(join(dir, 'proxy.sock')) : connect(port, '127.0.0.1');
    let received = 0;
    let head = !viaProxy;
    const request = `GET / HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`;
    socket.on('connect', () =>
      socket.write(viaProxy ? `CONNECT localhost:${port} HTTP/1.1\r\n\r\n` : request),
    );
    socket.on('data', (chunk: Buffer) => {
      if (!head) {
        // The proxy's `200 Connection Established`, then the origin's answer through the tunnel.
        head = true;
        socket.write(request);
        return;
      }
      received += chunk.length;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      if (received < SIZE) reject(new Error(`short download: ${received}`));
      else resolve((SIZE / 1024 / 1024 / (performance.now() - started)) * 1000);
    });
  });
}

const direct: number[] = [];
const proxied: number[] = [];
for (let i = 0; i < 7; i++) {
  direct.push(await download(false));
  proxied.push(await download(true));
}
await proxy.close();
origin.close();
await rm(dir, { recursive: true, force: true });

const ms = (n: number) => `${n.toFixed(1)} ms`;
console.log('sandbox (bubblewrap, default profile) vs unsandboxed, same server (raw-server.mjs), same run:');
console.log(
  `  spawn to the answer to initialize (transport level), median of 25: ${ms(median(answers.off))} → ${ms(median(answers.on))} (+${ms(median(answers.on) - median(answers.off))}; goal ≤ +50 ms)`,
);
console.log(
  `  Runtime.create to ready, median of ${START_ROUNDS}: ${ms(startOff)} → ${ms(startOn)} (+${ms(startOn - startOff)}; goal ≤ +50 ms)`,
);
console.log(
  `  tool call p50 over ${CALLS}: ${(callOff * 1000).toFixed(0)} µs → ${(callOn * 1000).toFixed(0)} µs (${((callOn / callOff - 1) * 100).toFixed(1)} %; goal ≤ +5 %)`,
);
console.log(
  `  proxy, 10 MB over CONNECT, median of 7: ${median(proxied).toFixed(0)} MB/s (direct: ${median(direct).toFixed(0)} MB/s, ratio ${(median(proxied) / median(direct)).toFixed(2)})`,
);
