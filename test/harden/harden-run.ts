// The hardening run of issue 14 ("Done means"): frames, processes, search escapes and injection, each
// counted. bench/harden.ts is the long mode; test/harden.test.ts runs a small round count in `npm test`.
// Target: every count 0 (lost answers, extra answers, hangs, crashes, orphans, escapes, deaths).
import { random } from '../serve/frame-fuzz.js';
import { type FramesRow, runFrames } from './frames.js';
import { type InjectionRow, runInjection } from './injection.js';
import { PROCESS_SCENARIOS, type ProcessOutcome, runProcessScenario } from './processes.js';
import { runSearchEscapes, type SearchOutcome } from './search-escapes.js';

export interface HardenOptions {
  rounds: number;
  seed: number;
  /** Frames per server and transport in each round. */
  framesPerRound?: number;
  /** Payloads drawn at random per string argument in each round. */
  payloadsPerRound?: number;
  /** Which string arguments (`contract`, `tool.argument`) get every payload once (default: all). */
  matrix?: (contract: string, argument: string) => boolean;
}

/** One line of the summary: what was done (`total`) and what went wrong (`faults`, all must be 0). */
export interface SummaryRow {
  category: 'frames' | 'processes' | 'search' | 'injection';
  what: string;
  total: number;
  faults: Record<string, number>;
}

export async function hardenFrames({ rounds, seed, framesPerRound = 250 }: HardenOptions) {
  const rows: FramesRow[] = await runFrames(seed, rounds * framesPerRound);
  return {
    rows: rows.map(
      (r): SummaryRow => ({
        category: 'frames',
        what: r.target,
        total: r.frames,
        faults: { lost: r.lost, extra: r.extra, wrong: r.wrong, hangs: r.hangs, crashes: r.crashes },
      }),
    ),
    notes: rows.flatMap((r) => r.examples.map((e) => `${r.target}: ${e}`)),
  };
}

export async function hardenProcesses({ rounds, seed }: HardenOptions) {
  const rnd = random(seed + 1);
  const outcomes: ProcessOutcome[] = [];
  for (let round = 0; round < rounds; round++)
    for (const scenario of PROCESS_SCENARIOS) outcomes.push(await runProcessScenario(scenario, rnd));
  return {
    rows: PROCESS_SCENARIOS.map((scenario): SummaryRow => {
      const mine = outcomes.filter((o) => o.scenario === scenario);
      const sum = (key: 'orphans' | 'hangs' | 'failures') => mine.reduce((n, o) => n + o[key], 0);
      return {
        category: 'processes',
        what: scenario,
        total: mine.length,
        faults: { orphans: sum('orphans'), hangs: sum('hangs'), 'not set up': sum('failures') },
      };
    }),
    notes: outcomes.flatMap((o) => o.notes),
  };
}

/** RSS growth the search category allows (the same bound as test/search/search-untrusted.test.ts). */
const RSS_LIMIT_MIB = 256;

export async function hardenSearch({ rounds, seed }: HardenOptions) {
  const outcome: SearchOutcome = await runSearchEscapes(rounds, random(seed + 2));
  return {
    rows: [
      ...Object.entries(outcome.attacks).map(
        ([attack, counts]): SummaryRow => ({
          category: 'search',
          what: attack,
          total: counts.rounds,
          faults: { escapes: counts.escapes, hangs: counts.hangs },
        }),
      ),
      {
        // The process holding the server: reading /dev/zero once cost ~0.5 GiB (on the old code, +1,096 MiB).
        category: 'search',
        what: `memory of the server's process (+${outcome.rssGrowthMiB} MiB)`,
        total: outcome.rounds,
        faults: { [`over ${RSS_LIMIT_MIB} MiB`]: outcome.rssGrowthMiB > RSS_LIMIT_MIB ? 1 : 0 },
      } satisfies SummaryRow,
    ],
    notes: outcome.notes,
  };
}

export async function hardenInjection({
  rounds,
  seed,
  payloadsPerRound = 3,
  matrix = () => true,
}: HardenOptions) {
  const rows: InjectionRow[] = await runInjection(
    { perArgument: rounds * payloadsPerRound, matrix },
    random(seed + 3),
  );
  return {
    rows: rows.map(
      (r): SummaryRow => ({
        category: 'injection',
        what: `${r.contract} (${r.refused} refused/failed)`,
        total: r.calls,
        faults: { escapes: r.escapes, deaths: r.deaths },
      }),
    ),
    notes: rows.flatMap((r) => r.notes.map((n) => `${r.contract}: ${n}`)),
  };
}

export const faultsOf = (rows: readonly SummaryRow[]) =>
  rows.reduce((n, r) => n + Object.values(r.faults).reduce((a, b) => a + b, 0), 0);

/** The summary table: one row per target, its total and every fault count. */
export function formatSummary(rows: readonly SummaryRow[]): string {
  const table = [
    ['category', 'target', 'total', 'faults'],
    ...rows.map((r) => [
      r.category,
      r.what,
      String(r.total),
      Object.entries(r.faults)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    ]),
  ];
  const widths = table[0]?.map((_, i) => Math.max(...table.map((r) => (r[i] ?? '').length))) ?? [];
  return table
    .map((row) =>
      row
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
