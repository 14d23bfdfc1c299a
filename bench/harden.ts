// The hardening run of issue 14, long mode (the short mode runs in `npm test`: test/harden.test.ts).
// Frames (the frame fuzzer against bridge, search server and gateway, stdio and HTTP), processes (SIGKILL,
// double Ctrl-C, setsid daemons over servers that will not stop), search escapes (links, devices and FIFOs
// added under a running search server) and injection payloads into the example contracts. Prints one
// summary table; exits 1 if any fault count is not 0. Needs a build (dist/) and Linux (/proc).
//
//   npx tsx bench/harden.ts [--rounds N] [--seed S]
import { parseArgs } from 'node:util';
import {
  faultsOf,
  formatSummary,
  hardenFrames,
  hardenInjection,
  hardenProcesses,
  hardenSearch,
  type SummaryRow,
} from '../test/harden/harden-run.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, seed: { type: 'string', default: '14' } },
});
const options = { rounds: Number(values.rounds), seed: Number(values.seed) };
const rows: SummaryRow[] = [];
const began = performance.now();
for (const category of [hardenFrames, hardenProcesses, hardenSearch, hardenInjection]) {
  const started = performance.now();
  const result = await category(options);
  rows.push(...result.rows);
  for (const note of result.notes) process.stderr.write(`  ${note}\n`);
  process.stderr.write(`${category.name}: ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}
const faults = faultsOf(rows);
process.stdout.write(
  `harden: ${options.rounds} rounds, seed ${options.seed}, ${((performance.now() - began) / 1000).toFixed(0)} s\n`,
);
process.stdout.write(`${formatSummary(rows)}\n`);
process.stdout.write(faults === 0 ? 'all counts 0\n' : `${faults} faults\n`);
process.exitCode = faults === 0 ? 0 : 1;
