// Code search quality: NDCG@10 over labelled queries, per language and per kind of query, with ripgrep as agents
// use it (the whole query as a fixed string, case-insensitive, files by match count) in the same run.
//
// Default set (bench/fixtures/search-quality-ml/*.json): 15 languages, one source tree each, from Debian packages
// and npm (bench/corpora-sources.ts; none is a repository of semble's benchmark), laid out by
// `npm run bench:corpora`. Queries were written with the code open; every third query of each kind in a suite
// is held out: no ranking change was tuned on it, and both splits are reported. Then natural language over
// uncommented code (bench/nl-queries.ts): queries from doc comments, searched in a copy with them blanked. The
// first column is the baseline to beat: a plain BM25 over 50-line windows (bench/search-baselines.ts).
// Results are de-duplicated to files in rank order; a listed file counts 1 (binary gain, ideal =
// min(10, relevant files)), a relevant path matches a result ending in `/<path>`, as semble's benchmark scores.
//
//   tsx bench/search-quality.ts [--verbose] [--ablate] [--no-nl] [--only=suite,suite]
// MODEL=DIR uses a static model's vectors (`--model DIR`); SEARCH_QUALITY_FIXTURES=DIR runs another set in the same format (`"package"` under bench/corpora/node_modules,
// or `"tree"` under bench/corpora/trees); W='{"path": 1}' runs with other weights; with --ablate, TRY='[["name", {"path": 1.2}]]' adds columns of other
// weights; VERBOSE_MODE=bm25|semantic picks which mode's misses --verbose lists (default hybrid).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CodeIndex, type SearchMode } from '../src/search/code-index/code-index.js';
import { DEFAULT_RANKING, type RankingWeights } from '../src/search/ranking/ranking.js';
import { StaticModel } from '../src/search/vectors/static-model.js';
import { corporaModules } from './corpora.js';
import { blankedCopy } from './nl-queries.js';
import { rankedFiles, WindowBm25 } from './search-baselines.js';

interface Query {
  query: string;
  relevant: string[];
  secondary?: string[];
  category: 'semantic' | 'architecture' | 'symbol';
}
interface Suite {
  package: string;
  tree?: string;
  root?: string;
  language: string;
  queries: Query[];
}

const verbose = process.argv.includes('--verbose');
const ablate = process.argv.includes('--ablate');
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',');
const K = 10;
const fixtures =
  process.env.SEARCH_QUALITY_FIXTURES ??
  fileURLToPath(new URL('./fixtures/search-quality-ml/', import.meta.url));
const suites: Suite[] = readdirSync(fixtures)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(fixtures, f), 'utf8')) as Suite)
  .filter((s) => !only || only.includes(s.package));
const trees = fileURLToPath(new URL('./corpora/trees/', import.meta.url));
const modules = corporaModules(suites.filter((s) => !s.tree).map((s) => s.package));
const missingTrees = suites.filter((s) => s.tree && !existsSync(join(trees, s.tree)));
if (missingTrees.length > 0) {
  console.error(
    `bench trees not laid out (${missingTrees.map((s) => s.tree).join(', ')}): run \`npm run bench:corpora\``,
  );
  process.exit(1);
}
const rootOf = (s: Suite) => (s.tree ? join(trees, s.tree) : join(modules, s.root ?? s.package));

/** Whether a result path is a labelled one: the same, or ending in `/<label>` (semble's path_matches). */
const matches = (file: string, label: string) => file === label || file.endsWith(`/${label}`);
const isWanted = (file: string, wanted: readonly string[]) => wanted.some((w) => matches(file, w));

/** NDCG@10 of a ranked file list: binary gain for every labelled file. */
function ndcg(files: string[], wanted: readonly string[]): number {
  let dcg = 0;
  files.slice(0, K).forEach((file, i) => {
    if (isWanted(file, wanted)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(K, wanted.length); i++) ideal += 1 / Math.log2(i + 2);
  return dcg / ideal;
}

const wantedOf = (q: Query) => [...q.relevant, ...(q.secondary ?? [])];

/** Files in the order their chunks rank (first occurrence), at most K. */
const filesOf = (index: CodeIndex, query: string, mode: SearchMode, ranking?: Partial<RankingWeights>) =>
  rankedFiles(index, query, mode, ranking, K);

const hasRg = spawnSync('rg', ['--version']).status === 0;
function ripgrep(root: string, query: string): Array<[string, number]> {
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
      return [relative(root, line.slice(0, at)), Number(line.slice(at + 1))] as [string, number];
    })
    .sort((a, b) => b[1] - a[1]);
}

interface Cost {
  ours: number | undefined;
  rg: number | undefined;
}

/** Tokens as agents are billed for them, near enough: four characters a token. */
const tokens = (text: string) => Math.ceil(text.length / 4);

/**
 * What an agent reads up to the first relevant file: our answer's chunks (top 5, as the tool shows them) up
 * to and including the first relevant one; ripgrep's match lines then each matched file read whole, in its
 * order, up to the relevant one. Undefined when neither finds it.
 */
function readCost(index: CodeIndex, root: string, q: Query): Cost {
  const wanted = wantedOf(q);
  let ours: number | undefined;
  let spent = 0;
  for (const hit of index.search(q.query, 5, 'hybrid')) {
    const lines = readFileSync(join(root, hit.chunk.path), 'utf8').split('\n');
    spent += tokens(lines.slice(hit.chunk.startLine - 1, hit.chunk.endLine).join('\n')) + 20;
    if (isWanted(hit.chunk.path, wanted)) {
      ours = spent;
      break;
    }
  }
  let rg: number | undefined;
  if (hasRg) {
    const listing = spawnSync(
      'rg',
      ['--no-heading', '-n', '--ignore-case', '--fixed-strings', '--', q.query, root],
      {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      },
    ).stdout;
    spent = tokens(listing);
    for (const [file] of ripgrep(root, q.query)) {
      spent += tokens(readFileSync(join(root, file), 'utf8'));
      if (isWanted(file, wanted)) {
        rg = spent;
        break;
      }
    }
  }
  return { ours, rg };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : (s[Math.floor((s.length - 1) / 2)] as number);
};

/** Scores by row (language, kind, split) and column (mode, ripgrep, ablation). */
class Table {
  readonly columns: string[] = [];
  readonly rows = new Map<string, Map<string, number[]>>();
  add(row: string, column: string, score: number): void {
    if (!this.columns.includes(column)) this.columns.push(column);
    const cells = this.rows.get(row) ?? new Map<string, number[]>();
    cells.set(column, [...(cells.get(column) ?? []), score]);
    this.rows.set(row, cells);
  }
  print(title: string, order?: string[]): void {
    console.log(title);
    console.log(`  ${''.padEnd(22)}${this.columns.map((c) => c.padStart(12)).join('')}     n`);
    const names = order ?? [...this.rows.keys()];
    for (const name of names) {
      const cells = this.rows.get(name);
      if (!cells) continue;
      const n = cells.get(this.columns[0] as string)?.length ?? 0;
      console.log(
        `  ${name.padEnd(22)}${this.columns
          .map((c) =>
            mean(cells.get(c) ?? [])
              .toFixed(3)
              .padStart(11),
          )
          .join('')}${String(n).padStart(6)}`,
      );
    }
  }
}

const ABLATIONS: Array<[string, Partial<RankingWeights>]> = [
  ['-definition', { definition: 0 }],
  ['-path', { path: 0 }],
  ['-test', { test: 1 }],
  ['-diversity', { sameFile: 1 }],
  ['-docs', { docs: 1 }],
  ['-fileEvid', { fileEvidence: 0, questionEvidence: 0 }],
  ['-question', { questionEvidence: DEFAULT_RANKING.fileEvidence }],
  ['-fileName', { fileName: 0 }],
  ...(process.env.TRY ? (JSON.parse(process.env.TRY) as Array<[string, Partial<RankingWeights>]>) : []),
];

// W='{"fileEvidence": 0}': other weights for every column (the ablations change them further).
const base = process.env.W ? (JSON.parse(process.env.W) as Partial<RankingWeights>) : undefined;
// MODEL=DIR: chunk vectors from a static model instead of the corpus's own (`--model DIR`).
const model = process.env.MODEL ? await StaticModel.load(process.env.MODEL) : undefined;
const withModel = model ? { model } : {};
const byLanguage = new Table();
const byKind = new Table();
const nlTable = new Table();
const costs: Cost[] = [];
const started = performance.now();
for (const suite of suites) {
  const root = rootOf(suite);
  const index = await CodeIndex.build(root, {
    saved: false,
    ...withModel,
    ...(process.env.VECTORS === 'none' ? { vectors: 'none' as const } : {}),
    ...(process.env.CHUNKING ? { chunking: process.env.CHUNKING as 'syntax' | 'outline' } : {}),
  });
  const modes: SearchMode[] = index.hasVectors ? ['bm25', 'semantic', 'hybrid'] : ['bm25'];
  const windows = new WindowBm25(root);
  const seen = new Map<string, number>();
  for (const q of suite.queries) {
    // Every third query of each kind in a suite is held out.
    const nth = seen.get(q.category) ?? 0;
    seen.set(q.category, nth + 1);
    const split = nth % 3 === 2 ? 'held-out' : 'tuned';
    const rows = [suite.language, 'all', `all ${split}`];
    const note = (column: string, score: number) => {
      for (const row of rows) byLanguage.add(row, column, score);
      byKind.add(q.category, column, score);
      byKind.add(`${q.category} ${split}`, column, score);
    };
    note('window-bm25', ndcg(windows.files(q.query, K), wantedOf(q)));
    for (const mode of modes) {
      const files = filesOf(index, q.query, mode, base);
      const score = ndcg(files, wantedOf(q));
      note(mode, score);
      if (verbose && mode === (process.env.VERBOSE_MODE ?? 'hybrid') && score < 1)
        console.log(
          `  ${suite.package} ${score.toFixed(2)} [${q.category}] ${JSON.stringify(q.query)} → ${files.slice(0, 4).join(', ')}`,
        );
    }
    if (hasRg)
      note(
        'ripgrep',
        ndcg(
          ripgrep(root, q.query)
            .slice(0, K)
            .map(([f]) => f),
          wantedOf(q),
        ),
      );
    if (ablate)
      for (const [name, weights] of ABLATIONS)
        note(
          name,
          ndcg(
            filesOf(index, q.query, index.hasVectors ? 'hybrid' : 'bm25', { ...base, ...weights }),
            wantedOf(q),
          ),
        );
    costs.push(readCost(index, root, q));
  }
  if (!process.argv.includes('--no-nl') && suite.tree) {
    const { dir, queries } = blankedCopy(root, 14);
    try {
      const blank = await CodeIndex.build(dir, {
        saved: false,
        ...withModel,
        ...(process.env.CHUNKING ? { chunking: process.env.CHUNKING as 'syntax' | 'outline' } : {}),
      });
      const blankWindows = new WindowBm25(dir);
      for (const q of queries) {
        const windowScore = ndcg(blankWindows.files(q.query, K), [q.file]);
        nlTable.add(suite.language, 'window-bm25', windowScore);
        nlTable.add('all', 'window-bm25', windowScore);
        for (const mode of blank.hasVectors
          ? (['bm25', 'semantic', 'hybrid'] as const)
          : (['bm25'] as const)) {
          const score = ndcg(filesOf(blank, q.query, mode), [q.file]);
          nlTable.add(suite.language, mode, score);
          nlTable.add('all', mode, score);
        }
        if (hasRg) {
          const score = ndcg(
            ripgrep(dir, q.query)
              .slice(0, K)
              .map(([f]) => f),
            [q.file],
          );
          nlTable.add(suite.language, 'ripgrep', score);
          nlTable.add('all', 'ripgrep', score);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

const queries = suites.reduce((n, s) => n + s.queries.length, 0);
const languages = [...new Set(suites.map((s) => s.language))];
byLanguage.print(
  `code search quality: NDCG@10, ${queries} queries over ${suites.length} trees in ${languages.length} languages (files de-duplicated; ${((performance.now() - started) / 1000).toFixed(0)} s)`,
  [...languages, 'all', 'all tuned', 'all held-out'],
);
byKind.print('by kind of query', [
  'architecture',
  'semantic',
  'symbol',
  'architecture tuned',
  'architecture held-out',
  'semantic tuned',
  'semantic held-out',
  'symbol tuned',
  'symbol held-out',
]);
if (nlTable.rows.size > 0)
  nlTable.print('natural language over uncommented code (doc-comment queries, comments blanked)', [
    ...languages,
    'all',
  ]);
const both = costs.filter((c) => c.ours !== undefined && c.rg !== undefined);
console.log(
  `tokens read to the first relevant file (${both.length} queries both answer): ours median ${median(both.map((c) => c.ours as number))}, ripgrep + reading files median ${median(both.map((c) => c.rg as number))} (ours alone answers ${costs.filter((c) => c.ours !== undefined).length}, ripgrep ${costs.filter((c) => c.rg !== undefined).length} of ${costs.length})`,
);
if (!hasRg) console.log('  ripgrep baseline: rg not installed (apt-get install ripgrep)');
