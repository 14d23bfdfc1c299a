// What watching calls costs the gateway's hot path, every case measured in the same run, rounds alternating:
//   plain      `mcpkit gateway` (no observer: the router skips the call-event seam entirely)
//   audit      `--audit FILE` (a JSON line per call, argument digest; in a folder of its own: see docs/dashboard.md)
//   traced     `--audit FILE` and OTLP export (OTEL_EXPORTER_OTLP_ENDPOINT: spans + metrics, protobuf) to a
//              receiver in this process that reads and drops each export
//   sampled    as traced, keeping 10 % of the traces (OTEL_TRACES_SAMPLER=traceidratio, ARG 0.1)
//   main       the same gateway built from the main checkout, when MCPKIT_BASELINE_CLI names its
//              dist/bin/main.js (the "0 % when not configured" check: plain vs main)
//   main-traced  that build set up as `traced` (what a change to the observers gained)
// Figures: throughput of 2,000 concurrent calls (calls/s, median of rounds), the gateway process's CPU per
// call in those bursts (from /proc: far steadier than calls/s on a loaded machine) and sequential p50 latency.
// Targets: audit + tracing cost <= 5 % of throughput; plain within noise of main.
// CASES=plain,traced runs only those; CPU_PROF=DIR writes each gateway's V8 CPU profile there (--cpu-prof).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { burstMs, median, sequentialP50 } from './measure.js';

const path = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const CLI = path('../dist/bin/main.js');
const CONTRACT = path('./fixtures/echo.yaml');
const BASELINE = process.env.MCPKIT_BASELINE_CLI;
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const BURST = 2000;
const ONLY = process.env.CASES?.split(',');
const CPU_PROF = process.env.CPU_PROF;

const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-observers-'));
const env = { PATH: process.env.PATH ?? '', HOME: dir, MCPKIT_CONFIG_DIR: join(dir, 'user') };
writeFileSync(
  join(dir, '.mcp.json'),
  JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [CLI, 'bridge', CONTRACT] } } }),
);

let exports = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    exports++;
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const otlp = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

/** CPU seconds (user + system) a process has used so far, from /proc (Linux): steady under load, unlike calls/s. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const pids = new Map<Client, number>();

async function gateway(cli: string, args: string[], extraEnv: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      ...(CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF] : []),
      cli,
      'gateway',
      '--pin',
      'off',
      ...args,
    ],
    cwd: dir,
    env: { ...env, ...extraEnv },
    stderr: 'ignore',
  });
  await client.connect(transport);
  if (transport.pid !== null) pids.set(client, transport.pid);
  return client;
}

const cases: [string, Client][] = [
  ['plain', await gateway(CLI, [])],
  ['audit', await gateway(CLI, ['--audit', join(dir, 'logs', 'audit.jsonl')])],
  [
    'traced',
    await gateway(CLI, ['--audit', join(dir, 'logs', 'audit-traced.jsonl')], {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
      OTEL_METRIC_EXPORT_INTERVAL: '1000',
    }),
  ],
];
cases.push([
  'sampled',
  await gateway(CLI, ['--audit', join(dir, 'logs', 'audit-sampled.jsonl')], {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
    OTEL_METRIC_EXPORT_INTERVAL: '1000',
    OTEL_TRACES_SAMPLER: 'traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '0.1',
  }),
]);
if (BASELINE) {
  cases.push(['main', await gateway(BASELINE, [])]);
  // The same traced set-up on the baseline build: what a change to the observers gained, in one run.
  cases.push([
    'main-traced',
    await gateway(BASELINE, ['--audit', join(dir, 'logs', 'audit-main.jsonl')], {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
      OTEL_METRIC_EXPORT_INTERVAL: '1000',
    }),
  ]);
}
if (ONLY)
  for (const [name, client] of [...cases])
    if (!ONLY.includes(name)) {
      await client.close();
      cases.splice(
        cases.findIndex(([n]) => n === name),
        1,
      );
    }

const call = (client: Client) => () =>
  client.callTool({ name: 'echo__echo_inproc', arguments: { text: 'hi' } });
const perSecond: Record<string, number[]> = Object.fromEntries(cases.map(([name]) => [name, []]));
const p50: Record<string, number[]> = Object.fromEntries(cases.map(([name]) => [name, []]));
/** The gateway's CPU per call in the bursts, in µs (the cost that load on the machine does not blur). */
const cpu: Record<string, number[]> = Object.fromEntries(cases.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, client] of round % 2 === 0 ? cases : [...cases].reverse()) {
    const pid = pids.get(client);
    const before = pid === undefined ? 0 : cpuSeconds(pid);
    perSecond[name]?.push((BURST / (await burstMs(call(client), BURST, 3))) * 1000);
    if (pid !== undefined) cpu[name]?.push(((cpuSeconds(pid) - before) / (BURST * 3)) * 1e6);
    p50[name]?.push(await sequentialP50(call(client), 1000));
  }
}
for (const [, client] of cases) await client.close();
receiver.close();
rmSync(dir, { recursive: true, force: true });

const base = median(perSecond.plain ?? perSecond[cases[0]?.[0] ?? ''] ?? []);
const baseCpu = median(cpu.plain ?? cpu[cases[0]?.[0] ?? ''] ?? []);
console.log(
  `gateway observers (${ROUNDS} rounds, ${BURST} concurrent calls per burst; OTLP exports received: ${exports})`,
);
for (const [name] of cases) {
  const rate = median(perSecond[name] ?? []);
  const cost = ((base - rate) / base) * 100;
  const us = median(cpu[name] ?? []);
  const cpuCost = ((us - baseCpu) / baseCpu) * 100;
  console.log(
    `  ${name.padEnd(11)} ${rate.toFixed(0).padStart(6)} calls/s  p50 ${median(p50[name] ?? []).toFixed(3)} ms  ` +
      `cpu ${us.toFixed(0).padStart(4)} µs/call  ` +
      (name === 'plain'
        ? 'baseline'
        : `calls/s ${cost >= 0 ? '-' : '+'}${Math.abs(cost).toFixed(1)} %, cpu/call ${cpuCost >= 0 ? '+' : '-'}${Math.abs(cpuCost).toFixed(1)} % vs plain`),
  );
}
