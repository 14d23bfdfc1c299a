// Frame fuzzing, long mode (the short mode runs in `npm test`: test/serve/frame-fuzz.test.ts).
// Sends N generated hostile frames (default 10,000) to each server mcpkit serves — bridge, search server,
// gateway; stdio and HTTP — and counts lost answers (a request-shaped frame with no answer), extra
// answers, hangs (an HTTP request that never completes) and crashes. Target: all zero.
//
//   npx tsx bench/fuzz-frames.ts [--frames N] [--seed S] [--root DIR]
//
// --root runs another build's dist/ (e.g. the main checkout) with the same frames: the baseline.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  type FuzzReport,
  fuzzFrames,
  fuzzHttp,
  fuzzStdio,
  type StdioEndpoint,
} from '../test/serve/frame-fuzz.js';

const { values } = parseArgs({
  options: {
    frames: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '14' },
    root: { type: 'string', default: fileURLToPath(new URL('..', import.meta.url)) },
  },
});
const FRAMES = Number(values.frames);
const SEED = Number(values.seed);
const CLI = join(resolve(values.root), 'dist/bin/main.js');
const CONTRACT = fileURLToPath(new URL('../test/fixtures/bridge/contract.yaml', import.meta.url));
const BRIDGE_TOOLS = ['argv', 'exit', 'lines', 'nope'];
const SEARCH_TOOLS = ['search', 'find_related'];

const dir = mkdtempSync(join(tmpdir(), 'mcpkit-fuzz-'));
writeFileSync(join(dir, 'a.ts'), 'export function add(a: number, b: number) {\n  return a + b;\n}\n');
const env = { PATH: process.env.PATH ?? '', HOME: dir, MCPKIT_CONFIG_DIR: join(dir, 'user') };

interface Target {
  name: string;
  args: string[];
  tools: string[];
}
const TARGETS: Target[] = [
  { name: 'bridge', args: ['bridge', CONTRACT], tools: BRIDGE_TOOLS },
  { name: 'search-server', args: ['search-server', dir], tools: SEARCH_TOOLS },
  { name: 'gateway', args: ['gateway'], tools: ['search', 'nope'] },
];

function start(args: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [CLI, ...args], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
}

function endpointOf(child: ChildProcessWithoutNullStreams): StdioEndpoint {
  let ended = false;
  let pending = '';
  const listeners: ((line: string) => void)[] = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const parts = (pending + chunk).split('\n');
    pending = parts.pop() ?? '';
    for (const line of parts) if (line.trim()) for (const listener of listeners) listener(line);
  });
  child.stdout.on('end', () => {
    ended = true;
  });
  child.stdin.on('error', () => undefined);
  return { write: (bytes) => child.stdin.write(bytes), onLine: (l) => listeners.push(l), ended: () => ended };
}

async function stdio(target: Target): Promise<FuzzReport> {
  const child = start(target.args);
  child.stderr.resume();
  try {
    return await fuzzStdio(endpointOf(child), fuzzFrames(SEED, FRAMES, target.tools), { quietMs: 5000 });
  } finally {
    child.kill('SIGKILL');
  }
}

async function http(target: Target): Promise<FuzzReport> {
  const child = start([...target.args, '--transport', 'http']);
  child.stdout.resume();
  try {
    const url = await new Promise<string>((resolveUrl, reject) => {
      let text = '';
      child.stderr.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        const found = /http:\/\/\S+\/mcp/.exec(text);
        if (found) resolveUrl(found[0]);
      });
      child.once('exit', () => reject(new Error(`${target.name} exited: ${text.trim()}`)));
    });
    return await fuzzHttp((u, init) => fetch(u, init), url, fuzzFrames(SEED, FRAMES, target.tools), {
      timeoutMs: 5000,
    });
  } finally {
    child.kill('SIGKILL');
  }
}

const rows: string[][] = [
  ['server', 'transport', 'frames', 'to answer', 'lost', 'extra', 'hangs', 'crashed', 's'],
];
try {
  for (const target of TARGETS) {
    for (const [transport, run] of [
      ['stdio', stdio],
      ['http', http],
    ] as const) {
      const began = performance.now();
      const report = await run(target);
      const seconds = ((performance.now() - began) / 1000).toFixed(1);
      rows.push([
        target.name,
        transport,
        String(report.frames),
        String(report.expected),
        String(report.lost),
        String(report.extra),
        String(report.hangs),
        report.crashed ? 'yes' : 'no',
        seconds,
      ]);
      for (const example of report.examples)
        process.stderr.write(`  ${target.name}/${transport}: ${example}\n`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
process.stdout.write(`fuzz-frames: ${CLI}, seed ${SEED}\n`);
for (const row of rows) process.stdout.write(`${row.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')}\n`);
