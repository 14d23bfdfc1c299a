// CLI start benchmark, every figure measured in the same run, in alternating rounds: `node -e 0` (the floor),
// `mcpkit --version`, `mcpkit list` (in an empty project, with an empty home) and `mcpkit gateway` from spawn to
// its answer to `initialize` on stdio (no servers configured). Target: --version and list within 2x the floor.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './measure.js';

const CLI = fileURLToPath(new URL('../dist/bin/main.js', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const home = mkdtempSync(join(tmpdir(), 'mcpkit-bench-cli-start-'));
const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };

/** Milliseconds from spawn to exit; a failed run stops the benchmark (a fast failure is not a fast start). */
function exitMs(args: string[]): Promise<number> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: home, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(performance.now() - t)
        : reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr.trim()}`)),
    );
  });
}

/** Milliseconds from spawning `mcpkit gateway` to its answer to `initialize`; then it is closed (stdin EOF). */
function gatewayAnswerMs(): Promise<number> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'gateway', '--pin', 'off'], {
      cwd: home,
      env,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let answered: number | undefined;
    child.stdout.once('data', () => {
      answered = performance.now() - t;
      child.stdin.end();
    });
    child.on('error', reject);
    child.on('close', () =>
      answered === undefined
        ? reject(new Error('mcpkit gateway ended without answering'))
        : resolve(answered),
    );
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'bench', version: '1' },
        },
      })}\n`,
    );
  });
}

const runs = {
  'node -e 0': () => exitMs(['-e', '0']),
  'mcpkit --version': () => exitMs([CLI, '--version']),
  'mcpkit list': () => exitMs([CLI, 'list']),
  'mcpkit gateway, first answer': gatewayAnswerMs,
};
const times = new Map<string, number[]>(Object.keys(runs).map((name) => [name, []]));
try {
  // One warm-up round (the file system cache), then rounds that alternate so load on the machine hits all alike.
  for (const run of Object.values(runs)) await run();
  for (let round = 0; round < ROUNDS; round++)
    for (const [name, run] of Object.entries(runs)) times.get(name)?.push(await run());
} finally {
  rmSync(home, { recursive: true, force: true });
}

const floor = median(times.get('node -e 0') ?? []);
console.log(
  `mcpkit CLI start (medians of ${ROUNDS} alternating rounds; target: --version and list <= 2.0x node -e 0)`,
);
for (const [name, xs] of times) {
  const ms = median(xs);
  console.log(`  ${name.padEnd(30)} ${ms.toFixed(0).padStart(5)} ms  ${(ms / floor).toFixed(2)}x node -e 0`);
}
