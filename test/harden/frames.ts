// Hardening run, category 1: the frame fuzzer of test/serve/frame-fuzz.ts against the servers mcpkit serves
// (bridge, search server, gateway), each spawned over stdio and over HTTP, as a user runs them. Also the
// driver of bench/fuzz-frames.ts (the frame fuzzer's own long mode).
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LineSplitter } from '../../src/internal/line-splitter.js';
import { CLI } from '../helpers/cli.js';
import { fixture } from '../helpers/servers.js';
import { type FuzzReport, fuzzFrames, fuzzHttp, fuzzStdio, type StdioEndpoint } from '../serve/frame-fuzz.js';

/** Counts of one server on one transport. */
export interface FramesRow {
  target: string;
  frames: number;
  expected: number;
  lost: number;
  extra: number;
  wrong: number;
  hangs: number;
  crashes: number;
  examples: string[];
  seconds: number;
}

/** stdio; HTTP in a 2025 session; HTTP as stateless 2026-07-28 requests. */
type Transport = 'stdio' | 'http' | 'http-2026';
const TRANSPORTS: Transport[] = ['stdio', 'http', 'http-2026'];

interface Target {
  name: string;
  args: (dir: string) => string[];
  tools: string[];
}
const TARGETS: Target[] = [
  {
    name: 'bridge',
    args: () => ['bridge', fixture('bridge/contract.yaml')],
    tools: ['argv', 'exit', 'lines', 'nope'],
  },
  { name: 'search-server', args: (dir) => ['search-server', dir], tools: ['search', 'find_related'] },
  { name: 'gateway', args: () => ['gateway'], tools: ['search', 'nope'] },
];

function endpointOf(child: ChildProcessWithoutNullStreams): StdioEndpoint {
  let ended = false;
  const listeners: ((line: string) => void)[] = [];
  const lines = new LineSplitter((line) => {
    if (line.trim()) for (const listener of listeners) listener(line);
  });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => lines.push(chunk));
  child.stdout.on('end', () => {
    ended = true;
  });
  child.stdin.on('error', () => undefined);
  return { write: (bytes) => child.stdin.write(bytes), onLine: (l) => listeners.push(l), ended: () => ended };
}

/** The URL a server started with `--transport http` prints on stderr. */
function urlOf(child: ChildProcessWithoutNullStreams, name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const found = /http:\/\/\S+\/mcp/.exec(text);
      if (found) resolve(found[0]);
    });
    child.once('exit', () => reject(new Error(`${name} exited: ${text.trim()}`)));
  });
}

async function fuzzOne(
  cli: string,
  target: Target,
  transport: Transport,
  dir: string,
  seed: number,
  frames: number,
) {
  const env = { PATH: process.env.PATH ?? '', HOME: dir, MCPKIT_CONFIG_DIR: join(dir, 'user') };
  const http = transport !== 'stdio';
  const args = [...target.args(dir), ...(http ? ['--transport', 'http'] : [])];
  const child = spawn(process.execPath, [cli, ...args], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const generated = fuzzFrames(seed, frames, target.tools);
  try {
    if (!http) {
      child.stderr.resume();
      return await fuzzStdio(endpointOf(child), generated, { quietMs: 5000 });
    }
    child.stdout.resume();
    const url = await urlOf(child, target.name);
    const era = transport === 'http-2026' ? 'modern' : 'legacy';
    return await fuzzHttp((u, init) => fetch(u, init), url, generated, { timeoutMs: 5000, era });
  } finally {
    child.kill('SIGKILL');
  }
}

/** Fuzzes each server on each transport with `frames` frames; `cli` runs another build (a baseline). */
export async function runFrames(seed: number, frames: number, cli = CLI): Promise<FramesRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-harden-frames-'));
  writeFileSync(join(dir, 'a.ts'), 'export function add(a: number, b: number) {\n  return a + b;\n}\n');
  const rows: FramesRow[] = [];
  try {
    for (const target of TARGETS)
      for (const transport of TRANSPORTS) {
        const began = performance.now();
        const report: FuzzReport = await fuzzOne(cli, target, transport, dir, seed, frames);
        rows.push({
          target: `${target.name}/${transport}`,
          frames: report.frames,
          expected: report.expected,
          lost: report.lost,
          extra: report.extra,
          wrong: report.wrong,
          hangs: report.hangs,
          crashes: report.crashed ? 1 : 0,
          examples: report.examples,
          seconds: (performance.now() - began) / 1000,
        });
      }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
