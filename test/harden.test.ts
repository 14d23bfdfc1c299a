import { describe, expect, it } from 'vitest';
import {
  faultsOf,
  formatSummary,
  hardenFrames,
  hardenInjection,
  hardenProcesses,
  hardenSearch,
  type SummaryRow,
} from './harden/harden-run.js';
import { SEARCH_ATTACKS } from './harden/search-escapes.js';
import { hasProcTable } from './helpers/process-table.js';

// Short mode of the hardening run (bench/harden.ts is the long mode; see docs/benchmarks.md): a round of
// each category. Every fault count must be 0, and each category must have done something (its totals > 0),
// so the run cannot pass by doing nothing. A failure prints the summary table and what went wrong.
const OPTIONS = { rounds: 1, seed: 14 };

function expectClean(result: { rows: SummaryRow[]; notes: string[] }): void {
  expect(result.rows.length).toBeGreaterThan(0);
  for (const row of result.rows) expect(row.total, row.what).toBeGreaterThan(0);
  const table = formatSummary(result.rows);
  expect({ faults: faultsOf(result.rows), notes: result.notes }, table).toEqual({ faults: 0, notes: [] });
}

describe
  .skipIf(!hasProcTable)
  .concurrent('hardening run (short): 0 lost, 0 hangs, 0 orphans, 0 escapes', () => {
    it('frames: every request-shaped frame to bridge, search server and gateway (stdio, HTTP) gets one answer', {
      timeout: 60_000,
    }, async () => {
      expectClean(await hardenFrames({ ...OPTIONS, framesPerRound: 80 }));
    });

    it('processes: SIGKILL, double Ctrl-C and a setsid daemon leave no orphan and no hung mcpkit', {
      timeout: 120_000,
    }, async () => {
      expectClean(await hardenProcesses(OPTIONS));
    });

    it('search: links, devices and FIFOs added under a running search server are never read', {
      timeout: 60_000,
    }, async () => {
      expectClean(await hardenSearch({ ...OPTIONS, rounds: SEARCH_ATTACKS.length }));
    });

    // Every payload into jq's filter (it once read a file outside JQ_ROOT), a sample into every other argument.
    it('injection: no payload runs a command, reads outside the roots or kills the bridge', {
      timeout: 90_000,
    }, async () => {
      expectClean(
        await hardenInjection({
          ...OPTIONS,
          payloadsPerRound: 4,
          matrix: (_, argument) => argument === 'query.filter',
        }),
      );
    });
  });
