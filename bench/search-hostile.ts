// Indexing hostile content (issue 14): files under code extensions that are not code. Each case is indexed in a
// child process of its own, so its peak RSS is its own: 200 files of 100 KiB each (20 MB) of NUL-free random bytes,
// of one long printable line, of deeply nested brackets and of `{`, both on short lines; and as the baseline real code
// (zod, ajv, undici from the lockfile, 1,178 files, ~13 MB) in the same run.
// Run: `npx tsx bench/search-hostile.ts` (all cases) or `npx tsx bench/search-hostile.ts '<case>'` (one case).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CodeIndex } from '../src/search/code-index/code-index.js';

/** A case that takes longer is stopped and reported so (`BENCH_CASE_TIMEOUT_S`, default 600). */
const CASE_TIMEOUT_S = Number(process.env.BENCH_CASE_TIMEOUT_S ?? 600);
const FILES = 200;
const BYTES = 100 * 1024;
const EXTENSIONS = ['ts', 'js', 'py', 'go', 'rs', 'java', 'c', 'cpp'];

/** What each case writes into an empty directory. */
const CASES: Record<string, (dir: string) => void> = {
  'real code (baseline)': (dir) => {
    const modules = fileURLToPath(new URL('../node_modules/', import.meta.url));
    for (const name of ['zod', 'ajv', 'undici'])
      cpSync(join(modules, name), join(dir, name), { recursive: true });
  },
  'NUL-free random bytes': (dir) =>
    hostileFiles(dir, () => {
      const bytes = randomBytes(BYTES);
      for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0) bytes[i] = 1;
      return bytes;
    }),
  'one long printable line': (dir) =>
    hostileFiles(dir, () => {
      const bytes = randomBytes(BYTES);
      for (let i = 0; i < bytes.length; i++) bytes[i] = 0x21 + ((bytes[i] as number) % 94);
      return bytes;
    }),
  'nested brackets on short lines': (dir) =>
    hostileFiles(dir, () =>
      Buffer.from(`${'('.repeat(99)}\n`.repeat(BYTES / 200) + `${')'.repeat(99)}\n`.repeat(BYTES / 200)),
    ),
  'braces on short lines': (dir) =>
    hostileFiles(dir, () => Buffer.from(`${'{'.repeat(99)}\n`.repeat(BYTES / 100))),
};

function hostileFiles(dir: string, content: () => Buffer): void {
  mkdirSync(join(dir, 'src'));
  for (let i = 0; i < FILES; i++)
    writeFileSync(join(dir, 'src', `file${i}.${EXTENSIONS[i % EXTENSIONS.length]}`), content());
}

const only = process.argv[2];
if (only) {
  // A child: index one case and print one JSON line.
  const make = CASES[only];
  if (!make) throw new Error(`no case ${only}; cases: ${Object.keys(CASES).join(', ')}`);
  // The parent passes the directory and deletes it: a child stopped at the time limit cannot.
  const given = process.argv[3];
  const dir = given ?? mkdtempSync(join(tmpdir(), 'mcpkit-bench-hostile-'));
  try {
    make(dir);
    const started = performance.now();
    const index = await CodeIndex.build(dir, { saved: false, vectors: 'none' });
    const ms = performance.now() - started;
    const peakMb = process.resourceUsage().maxRSS / 1024;
    console.log(
      JSON.stringify({ ms, peakMb, files: index.files, chunks: index.chunkCount, report: index.report }),
    );
  } finally {
    if (!given) rmSync(dir, { recursive: true, force: true });
  }
} else {
  console.log(
    `hostile content benchmark: ${FILES} files of ${BYTES / 1024} KiB under code extensions, per case`,
  );
  let baseline: number | undefined;
  for (const name of Object.keys(CASES)) {
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-hostile-'));
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), name, dir],
      {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        timeout: CASE_TIMEOUT_S * 1000,
        killSignal: 'SIGKILL',
      },
    );
    rmSync(dir, { recursive: true, force: true });
    const line = child.stdout.trim().split('\n').pop() ?? '';
    if (child.signal) {
      console.log(`  ${name}: did not finish within ${CASE_TIMEOUT_S} s (stopped)`);
      continue;
    }
    if (child.status !== 0 || !line.startsWith('{')) {
      console.log(`  ${name}: failed (exit ${child.status}) ${child.stderr.trim().split('\n').pop() ?? ''}`);
      continue;
    }
    const { ms, peakMb, files, chunks, report } = JSON.parse(line) as {
      ms: number;
      peakMb: number;
      files: number;
      chunks: number;
      report?: unknown;
    };
    baseline ??= ms;
    console.log(
      `  ${name}: ${ms.toFixed(0)} ms (${(ms / baseline).toFixed(2)}x the real code), peak RSS ${peakMb.toFixed(0)} MB, ` +
        `${files} files indexed, ${chunks} chunks${report ? `, ${JSON.stringify(report)}` : ''}`,
    );
  }
}
