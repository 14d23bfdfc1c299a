// Gateway benchmark, every baseline measured in the same run:
// (a) tools/call through `mcpkit gateway` vs direct to the same upstream (an mcpkit bridge with an
//     in-process echo tool): sequential p50 (target: added <= 0.3 ms) and 2,000 concurrent calls
//     (target: throughput >= 0.8x direct);
// (b) over HTTP with 32 in flight: the gateway vs `mcpkit bridge --transport http` (the serve/ figure;
//     target: at least that) and a bare SDK createMcpHandler server;
// (c) tool_search over 1,000 tools: p50 per query (target <= 1 ms);
// (d) tool-selection quality: recall@1 / recall@5 of the right tool over the reference servers' real tools
//     plus the synthetic corpus, for the task queries in fixtures/tool-corpus.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, type Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Runtime } from '../src/client/index.js';
import type { ExposedTool } from '../src/gateway/catalog.js';
import { ToolSearch } from '../src/gateway/tool-search.js';
import { QUERIES, SYNTHETIC_TOOLS } from './fixtures/tool-corpus.js';
import { sdkHttpThroughput as httpThroughput, rawHttpThroughput } from './http-load.js';
import { burstMs, median, sequentialP50 } from './measure.js';

const path = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const CLI = path('../dist/bin/main.js');
const CONTRACT = path('./fixtures/echo.yaml');
const modules = (p: string) => path(`../node_modules/${p}`);

const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-gateway-'));
const env = { PATH: process.env.PATH ?? '', HOME: dir, MCPKIT_CONFIG_DIR: join(dir, 'user') };
writeFileSync(
  join(dir, '.mcp.json'),
  JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [CLI, 'bridge', CONTRACT] } } }),
);

async function stdioClient(args: string[]): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args, cwd: dir, env, stderr: 'ignore' }),
  );
  return client;
}

const call = (client: Client, name: string) => () => client.callTool({ name, arguments: { text: 'hi' } });

function startHttp(args: string[], pattern: RegExp, stream: 'stdout' | 'stderr') {
  const child = spawn(process.execPath, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let seen = '';
  const url = new Promise<string>((resolve) =>
    child[stream].on('data', (c: Buffer) => {
      seen += c.toString();
      const match = pattern.exec(seen);
      if (match?.[1]) resolve(match[1]);
    }),
  );
  return { url, stop: () => child.kill('SIGTERM') };
}

// (a) In-process: the same upstream, directly and behind the gateway, alternating rounds.
const direct = await stdioClient([CLI, 'bridge', CONTRACT]);
const gateway = await stdioClient([CLI, 'gateway', '--pin', 'off']);
const p50 = { direct: [] as number[], gateway: [] as number[] };
const burst = { direct: [] as number[], gateway: [] as number[] };
for (let round = 0; round < 5; round++) {
  p50.direct.push(await sequentialP50(call(direct, 'echo_inproc')));
  p50.gateway.push(await sequentialP50(call(gateway, 'echo__echo_inproc')));
  burst.direct.push(await burstMs(call(direct, 'echo_inproc')));
  burst.gateway.push(await burstMs(call(gateway, 'echo__echo_inproc')));
}
await direct.close();
await gateway.close();

// (b) HTTP, 32 in flight.
const servers = [
  [
    'gateway',
    startHttp([CLI, 'gateway', '--pin', 'off', '--transport', 'http'], /serving on (\S+)/, 'stderr'),
    'echo__echo_inproc',
  ],
  [
    'bridge',
    startHttp([CLI, 'bridge', CONTRACT, '--transport', 'http'], /serving \S+ on (\S+)/, 'stderr'),
    'echo_inproc',
  ],
  ['sdk', startHttp([path('./fixtures/sdk-http-server.mjs')], /(http:\S+)/, 'stdout'), 'echo_inproc'],
] as const;
const rates: Record<string, number> = {};
const raw: Record<string, number> = {};
for (const [name, server, tool] of servers) {
  rates[name] = await httpThroughput(await server.url, tool, 3000, 32);
  raw[name] = await rawHttpThroughput(await server.url, tool, 10_000, 32);
}
for (const [, server] of servers) server.stop();

// (c) + (d): the real tools of the reference servers plus the synthetic corpus.
const runtime = await Runtime.create({
  servers: [
    {
      name: 'everything',
      entry: {
        command: process.execPath,
        args: [modules('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
      },
    },
    {
      name: 'files',
      entry: {
        command: process.execPath,
        args: [modules('@modelcontextprotocol/server-filesystem/dist/index.js'), dir],
      },
    },
    {
      name: 'memory',
      entry: {
        command: process.execPath,
        args: [modules('@modelcontextprotocol/server-memory/dist/index.js')],
      },
    },
  ],
});
const real: { server: string; tool: Tool }[] = [];
for (const connection of runtime.servers())
  for (const tool of await connection.listTools()) real.push({ server: connection.id, tool });
await runtime.close();
const exposed = (server: string, tool: Tool): ExposedTool => ({
  name: `${server}__${tool.name}`,
  server,
  tool: tool.name,
  definition: { ...tool, name: `${server}__${tool.name}` },
  alwaysLoad: false,
});
const corpus = [
  ...real.map(({ server, tool }) => exposed(server, tool)),
  ...SYNTHETIC_TOOLS.map((t) =>
    exposed(t.server, { name: t.name, description: t.description, inputSchema: t.inputSchema }),
  ),
];
const names = new Set(corpus.map((t) => t.name));
const missing = QUERIES.filter(([, tool]) => !names.has(tool));
if (missing.length > 0)
  throw new Error(`queries name tools not in the corpus: ${missing.map((m) => m[1]).join(', ')}`);
function quality(search: ToolSearch) {
  let hit1 = 0;
  let hit5 = 0;
  let reciprocal = 0;
  const misses: string[] = [];
  for (const [query, tool] of QUERIES) {
    const found = search.search(query, 5).map((m) => m.name);
    const rank = found.indexOf(tool);
    if (rank === 0) hit1++;
    if (rank >= 0) {
      hit5++;
      reciprocal += 1 / (rank + 1);
    } else misses.push(`  "${query}" → wanted ${tool}, got ${found.slice(0, 3).join(', ') || 'nothing'}`);
  }
  const n = QUERIES.length;
  return {
    text: `recall@1 ${(hit1 / n).toFixed(3)}, recall@5 ${(hit5 / n).toFixed(3)}, MRR@5 ${(reciprocal / n).toFixed(3)}`,
    misses,
  };
}
const withSynonyms = quality(new ToolSearch(corpus));
const plainBm25 = quality(new ToolSearch(corpus, { synonyms: false }));

// 1,000 tools: the corpus, then renamed copies of the synthetic tools as other servers would carry them.
const thousand = [...corpus];
for (let copy = 1; thousand.length < 1000; copy++)
  for (const t of SYNTHETIC_TOOLS) {
    if (thousand.length >= 1000) break;
    thousand.push(
      exposed(`${t.server}${copy}`, { name: t.name, description: t.description, inputSchema: t.inputSchema }),
    );
  }
const built = performance.now();
const big = new ToolSearch(thousand);
const buildMs = performance.now() - built;
const searchTimes: number[] = [];
for (let round = 0; round < 20; round++)
  for (const [query] of QUERIES) {
    const t = performance.now();
    big.search(query, 5);
    searchTimes.push(performance.now() - t);
  }
rmSync(dir, { recursive: true, force: true });

const m = (xs: number[]) => median(xs);
const added = m(p50.gateway) - m(p50.direct);
const throughput = m(burst.direct) / m(burst.gateway);
console.log('mcpkit gateway benchmark (medians of 5 alternating rounds)');
console.log(
  `  (a) sequential tools/call p50: direct ${m(p50.direct).toFixed(3)} ms, through the gateway ${m(p50.gateway).toFixed(3)} ms; added ${added.toFixed(3)} ms (target <= 0.3)`,
);
console.log(
  `      2,000 concurrent: direct ${m(burst.direct).toFixed(1)} ms, gateway ${m(burst.gateway).toFixed(1)} ms; throughput ${throughput.toFixed(2)}x direct (target >= 0.8)`,
);
console.log(
  `  (b) HTTP tools/call, 32 in flight, raw keep-alive client: gateway ${raw.gateway?.toFixed(0)} calls/s, bridge ${raw.bridge?.toFixed(0)} calls/s, bare SDK createMcpHandler ${raw.sdk?.toFixed(0)} calls/s; gateway/bridge ${((raw.gateway ?? 0) / (raw.bridge ?? 1)).toFixed(2)}, gateway/SDK ${((raw.gateway ?? 0) / (raw.sdk ?? 1)).toFixed(2)}`,
);
console.log(
  `      with the SDK client: gateway ${rates.gateway?.toFixed(0)}, bridge ${rates.bridge?.toFixed(0)}, SDK ${rates.sdk?.toFixed(0)} calls/s`,
);
console.log(
  `  (c) tool_search over ${thousand.length} tools: p50 ${m(searchTimes).toFixed(3)} ms, p99 ${[...searchTimes].sort((a, b) => a - b)[Math.floor(searchTimes.length * 0.99)]?.toFixed(3)} ms (target p50 <= 1); index built in ${buildMs.toFixed(1)} ms`,
);
console.log(
  `  (d) tool selection, ${QUERIES.length} queries over ${corpus.length} tools (${real.length} real + ${SYNTHETIC_TOOLS.length} synthetic): ${withSynonyms.text}`,
);
console.log(`      the same without synonym expansion (plain BM25F): ${plainBm25.text}`);
if (withSynonyms.misses.length > 0) console.log(`      missed at 5:\n${withSynonyms.misses.join('\n')}`);
