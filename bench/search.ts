// Code search benchmark on a corpus of ~1.2k source files from pinned npm packages (zod, ajv, undici, as
// bench/corpora's lockfile pins them), copied to a temp dir: cold index time and files/s (BM25 over outlined chunks;
// no saved index), the time the corpus vectors add, RSS, warm query p50/p99 per mode, and ripgrep on the same
// queries in the same run as the baseline.
// Goals (issue 5, 2 cores): cold index of 1k files <= 1 s BM25-only, warm query p50 <= 2 ms bm25, <= 5 ms hybrid.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodeIndex, type SearchMode } from '../src/search/code-index/code-index.js';
import { corporaModules } from './corpora.js';
import { median, percentile } from './measure.js';

const modules = corporaModules(['zod', 'ajv', 'undici']);
const corpus = mkdtempSync(join(tmpdir(), 'mcpkit-bench-search-'));
for (const name of ['zod', 'ajv', 'undici'])
  cpSync(join(modules, name), join(corpus, name), { recursive: true });

const QUERIES = [
  'parse a string schema with a minimum length',
  'discriminated union',
  'ZodError format issues',
  'safeParse',
  'coerce a value to a number',
  'compile a JSON schema into a validate function',
  'custom keyword definition',
  'remove additional properties',
  'format validation email uri',
  'resolve $ref to another schema',
  'HTTP connection pool keep-alive',
  'retry a request on failure',
  'parse response headers',
  'abort a fetch request with a signal',
  'mock agent for tests',
  'proxy agent tunnel',
  'websocket frame parsing',
  'cookie parsing',
  'redirect handling',
  'body mixin json text arrayBuffer',
  'errors with a code and message',
  'timeout for headers and body',
  'ProxyAgent',
  'Pool dispatcher',
  'refine with a custom message',
  'transform output type',
  'optional and nullable wrappers',
  'record of keys and values',
  'intersection of two object schemas',
  'error map localisation',
];

const t0 = performance.now();
const first = await CodeIndex.build(corpus, { saved: false, vectors: 'none' });
const firstMs = performance.now() - t0;
const t1 = performance.now();
const plain = await CodeIndex.build(corpus, { saved: false, vectors: 'none' });
const warmBuildMs = performance.now() - t1;
const t2 = performance.now();
const index = await CodeIndex.build(corpus, { saved: false });
const vectorBuildMs = performance.now() - t2;
const rssMb = process.memoryUsage().rss / 1024 / 1024;

const times: Record<SearchMode, number[]> = { bm25: [], semantic: [], hybrid: [] };
for (const mode of ['bm25', 'semantic', 'hybrid'] as const)
  for (let round = 0; round < 20; round++)
    for (const query of QUERIES) {
      const t = performance.now();
      (mode === 'bm25' ? plain : index).search(query, 5, mode);
      times[mode].push(performance.now() - t);
    }

// ripgrep as agents use it: one case-insensitive search for the query's longest word, file names out.
const rgTimes: number[] = [];
const hasRg = spawnSync('rg', ['--version']).status === 0;
if (hasRg)
  for (const query of QUERIES) {
    const word = query.split(/\W+/).sort((a, b) => b.length - a.length)[0] ?? query;
    const t = performance.now();
    spawnSync('rg', ['-l', '-i', '--', word, corpus], { encoding: 'utf8' });
    rgTimes.push(performance.now() - t);
  }
rmSync(corpus, { recursive: true, force: true });

console.log(
  `code search benchmark: ${index.files} files, ${index.chunkCount} chunks (zod, ajv, undici pinned in bench/corpora)`,
);
console.log(
  `  cold index, bm25 only (first in the process): ${firstMs.toFixed(0)} ms, ${((first.files / firstMs) * 1000).toFixed(0)} files/s`,
);
console.log(
  `  index again, bm25 only: ${warmBuildMs.toFixed(0)} ms, ${((index.files / warmBuildMs) * 1000).toFixed(0)} files/s (goal: 1k files <= 1 s)`,
);
console.log(
  `  index with vectors learned from the code (the default): ${vectorBuildMs.toFixed(0)} ms (+${(vectorBuildMs - warmBuildMs).toFixed(0)} ms for the vectors)`,
);
console.log(`  RSS after three builds: ${rssMb.toFixed(0)} MB`);
for (const mode of ['bm25', 'semantic', 'hybrid'] as const)
  console.log(
    `  warm query (${mode}): p50 ${median(times[mode]).toFixed(3)} ms, p99 ${percentile(times[mode], 0.99).toFixed(3)} ms (goal p50 <= ${mode === 'bm25' ? 2 : 5} ms)`,
  );
if (hasRg)
  console.log(
    `  ripgrep baseline, same queries (spawn + search): p50 ${median(rgTimes).toFixed(1)} ms, p99 ${percentile(rgTimes, 0.99).toFixed(1)} ms`,
  );
else console.log('  ripgrep baseline: rg not installed (apt-get install ripgrep)');
