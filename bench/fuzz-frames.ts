// Frame fuzzing, long mode (the short mode runs in `npm test`: test/serve/frame-fuzz.test.ts).
// Sends N generated hostile frames (default 10,000) to each server mcpkit serves — bridge, search server,
// gateway; stdio and HTTP — and counts lost answers (a request-shaped frame with no answer), extra
// answers, hangs (an HTTP request that never completes) and crashes. Target: all zero. The same driver is
// the first category of the hardening run (bench/harden.ts).
//
//   npx tsx bench/fuzz-frames.ts [--frames N] [--seed S] [--root DIR]
//
// --root runs another build's dist/ (e.g. the main checkout) with the same frames: the baseline.
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runFrames } from '../test/harden/frames.js';

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

const rows: string[][] = [
  ['server', 'transport', 'frames', 'to answer', 'lost', 'extra', 'wrong', 'hangs', 'crashed', 's'],
];
for (const row of await runFrames(SEED, FRAMES, CLI)) {
  const [server = '', transport = ''] = row.target.split('/');
  rows.push([
    server,
    transport,
    String(row.frames),
    String(row.expected),
    String(row.lost),
    String(row.extra),
    String(row.wrong),
    String(row.hangs),
    row.crashes ? 'yes' : 'no',
    row.seconds.toFixed(1),
  ]);
  for (const example of row.examples) process.stderr.write(`  ${row.target}: ${example}\n`);
}
const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
process.stdout.write(`fuzz-frames: ${CLI}, seed ${SEED}\n`);
for (const row of rows) process.stdout.write(`${row.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')}\n`);
