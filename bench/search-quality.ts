// Code search quality: NDCG@10 over labelled queries (bench/fixtures/search-quality/*.json) against the
// sources npm ships for express, axios, redux, zod (TypeScript, JavaScript) and node-gyp (Python + JavaScript),
// each indexed where it is installed. Results are de-duplicated to files in rank order; a file listed as
// relevant or secondary counts 1 (binary gain, ideal = min(10, relevant files)); the score is the mean per
// package, then the mean of the packages. ripgrep as agents use it (the whole query as a fixed string,
// case-insensitive, files by match count) runs on the same queries in the same run as the baseline.
//
//   tsx bench/search-quality.ts [--verbose] [--ablate]     (--ablate: each ranking signal switched off in turn, default mode)
// The packages are installed in bench/corpora/ (`npm run bench:corpora`), pinned by its lockfile. A suite may name
// its directory under node_modules (`"root": "zod/src"`); by default it is the package.
// With --ablate, TRY='[["name", {"path": 1.2}]]' adds columns of other weights to compare; with --verbose,
// VERBOSE_MODE=bm25|semantic picks which mode's misses are listed (default hybrid).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CodeIndex, type SearchMode } from '../src/search/code-index.js';
import type { RankingWeights } from '../src/search/ranking.js';
import { corporaModules } from './corpora.js';

interface Query {
  query: string;
  relevant: string[];
  secondary?: string[];
  category: 'semantic' | 'architecture' | 'symbol';
}
interface Suite {
  package: string;
  root?: string;
  language: string;
  queries: Query[];
}

const verbose = process.argv.includes('--verbose');
const ablate = process.argv.includes('--ablate');
const K = 10;
// SEARCH_QUALITY_FIXTURES=DIR: another set of labelled queries in the same format (your own repository's).
const fixtures =
  process.env.SEARCH_QUALITY_FIXTURES ??
  fileURLToPath(new URL('./fixtures/search-quality/', import.meta.url));
const suites: Suite[] = readdirSync(fixtures)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(fixtures, f), 'utf8')) as Suite);
const modules = corporaModules(suites.map((s) => s.package));

/** NDCG@10 of a ranked file list: binary gain for every listed file. */
function ndcg(files: string[], wanted: Set<string>): number {
  let dcg = 0;
  files.slice(0, K).forEach((file, i) => {
    if (wanted.has(file)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(K, wanted.size); i++) ideal += 1 / Math.log2(i + 2);
  return dcg / ideal;
}

const wantedOf = (q: Query) => new Set([...q.relevant, ...(q.secondary ?? [])]);

/** Files in the order their chunks rank (first occurrence), at most K. */
function filesOf(
  index: CodeIndex,
  query: string,
  mode: SearchMode,
  ranking?: Partial<RankingWeights>,
): string[] {
  const files: string[] = [];
  for (const hit of index.search(query, 60, mode, ranking)) {
    if (!files.includes(hit.chunk.path)) files.push(hit.chunk.path);
    if (files.length === K) break;
  }
  return files;
}

function ripgrep(root: string, query: string): string[] {
  const run = spawnSync(
    'rg',
    ['--count', '--no-heading', '--ignore-case', '--fixed-strings', '--', query, root],
    {
      encoding: 'utf8',
    },
  );
  return run.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const at = line.lastIndexOf(':');
      return [relative(root, line.slice(0, at)), Number(line.slice(at + 1))] as const;
    })
    .sort((a, b) => b[1] - a[1])
    .slice(0, K)
    .map(([file]) => file);
}
const hasRg = spawnSync('rg', ['--version']).status === 0;

type Scores = Record<string, number[]>; // column → per-package means
const columns: string[] = [];
const table = new Map<string, Record<string, number>>(); // package → column → NDCG@10
const byCategory = new Map<string, Record<string, number[]>>();
const note = (pkg: string, column: string, value: number) => {
  if (!columns.includes(column)) columns.push(column);
  const row = table.get(pkg) ?? {};
  row[column] = value;
  table.set(pkg, row);
};

const ABLATIONS: Array<[string, Partial<RankingWeights>]> = [
  [
    'no stack',
    {
      definition: 0,
      path: 0,
      test: 1,
      declaration: 1,
      sameFile: 1,
      twin: 1,
      legacy: 1,
      docs: 1,
      examples: 1,
    },
  ],
  ['-definition', { definition: 0 }],
  ['-path', { path: 0 }],
  ['-test', { test: 1 }],
  ['-d.ts', { declaration: 1 }],
  ['-diversity', { sameFile: 1 }],
  ['-twin', { twin: 1 }],
  ['-legacy', { legacy: 1 }],
  ['-docs', { docs: 1 }],
  ['-examples', { examples: 1 }],
  ...(process.env.TRY ? (JSON.parse(process.env.TRY) as Array<[string, Partial<RankingWeights>]>) : []),
];

for (const suite of suites) {
  const root = join(modules, suite.root ?? suite.package);
  const index = await CodeIndex.build(root, {
    saved: false,
    ...(process.env.VECTORS === 'none' ? { vectors: 'none' as const } : {}),
  });
  const modes: SearchMode[] = index.hasVectors ? ['bm25', 'semantic', 'hybrid'] : ['bm25'];
  for (const mode of modes) {
    const scores = suite.queries.map((q) => {
      const files = filesOf(index, q.query, mode);
      const score = ndcg(files, wantedOf(q));
      const cat = byCategory.get(q.category) ?? {};
      cat[mode] = [...(cat[mode] ?? []), score];
      byCategory.set(q.category, cat);
      if (verbose && mode === (process.env.VERBOSE_MODE ?? 'hybrid') && score < 1)
        console.log(
          `  ${suite.package} ${score.toFixed(2)} ${JSON.stringify(q.query)} → ${files.slice(0, 4).join(', ')}`,
        );
      return score;
    });
    note(suite.package, mode, mean(scores));
  }
  if (ablate)
    for (const [name, weights] of ABLATIONS)
      note(
        suite.package,
        name,
        mean(
          suite.queries.map((q) =>
            ndcg(filesOf(index, q.query, index.hasVectors ? 'hybrid' : 'bm25', weights), wantedOf(q)),
          ),
        ),
      );
  if (hasRg) {
    const scores = suite.queries.map((q) => ndcg(ripgrep(root, q.query), wantedOf(q)));
    note(suite.package, 'ripgrep', mean(scores));
  }
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
}

const queries = suites.reduce((n, s) => n + s.queries.length, 0);
console.log(
  `code search quality: NDCG@10, ${queries} queries over ${suites.length} packages (files de-duplicated)`,
);
const pad = (s: string, n: number) => s.padEnd(n);
console.log(`  ${pad('package', 10)}${columns.map((c) => c.padStart(12)).join('')}`);
const overall: Scores = {};
for (const suite of suites) {
  const row = table.get(suite.package) ?? {};
  console.log(
    `  ${pad(suite.package, 10)}${columns.map((c) => (row[c] ?? 0).toFixed(3).padStart(12)).join('')}`,
  );
  for (const c of columns) overall[c] = [...(overall[c] ?? []), row[c] ?? 0];
}
console.log(
  `  ${pad('mean', 10)}${columns
    .map((c) =>
      mean(overall[c] ?? [])
        .toFixed(3)
        .padStart(12),
    )
    .join('')}`,
);
for (const [category, modes] of byCategory)
  console.log(
    `  ${pad(category, 14)}${Object.entries(modes)
      .map(([mode, xs]) => `${mode} ${mean(xs).toFixed(3)} (${xs.length})`)
      .join('  ')}`,
  );
if (!hasRg) console.log('  ripgrep baseline: rg not installed (apt-get install ripgrep)');
