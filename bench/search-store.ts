// The shared code index in PostgreSQL (issue 19) against the in-memory index, in one run on one machine: a tree of
// ~10.5k Java files (five modules of the JDK's sources), indexed into a private PostgreSQL (files/s, fresh, again
// with nothing changed, and with 20 files changed) and in memory; a server's first search (it loads its copy of
// the postings and vectors); then the same queries on both (p50/p99, bm25 and hybrid, limit 5; each store search
// first asks the store for its generation) and whether their ranked paths are equal — on the fresh tree, where the
// store's vectors are the in-memory build's. PostgreSQL is Debian's (the tests' private server helper).
//
// The tree: MCPKIT_BENCH_JDK_SRC (a src.zip), else Debian's openjdk-17-source; skipped with one line when neither.
// MCPKIT_BENCH_STORE_MODULES (comma-separated JDK modules) picks a smaller tree for a quick run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodeIndex } from '../src/search/code-index/code-index.js';
import { walk } from '../src/search/files/walk.js';
import { indexIntoStore, PgStore, parseStoreUrl } from '../src/search/stores/pg/index.js';
import { postgresBin, startPostgres } from '../test/helpers/databases.js';
import { JDK_QUERIES, percentile } from './measure.js';

const MODULES = process.env.MCPKIT_BENCH_STORE_MODULES?.split(',') ?? [
  'java.base',
  'java.desktop',
  'java.xml',
  'jdk.localedata',
  'jdk.hotspot.agent',
];
const MODES = ['bm25', 'hybrid'] as const;
const ROUNDS = 5;

const ms = (x: number) => `${x.toFixed(2)} ms`;

async function main(): Promise<void> {
  const zip = process.env.MCPKIT_BENCH_JDK_SRC ?? '/usr/lib/jvm/openjdk-17/lib/src.zip';
  if (!existsSync(zip) || !postgresBin()) {
    console.log(
      `search store benchmark: skipped: ${postgresBin() ? `no ${zip}` : 'no PostgreSQL (apt-get install postgresql)'}`,
    );
    return;
  }
  const tree = mkdtempSync(join(tmpdir(), 'mcpkit-bench-store-'));
  const pg = await startPostgres();
  try {
    if (spawnSync('unzip', ['-q', zip, ...MODULES.map((m) => `${m}/*`), '-d', tree]).status !== 0) {
      console.log(`search store benchmark: skipped: cannot unzip ${zip}`);
      return;
    }
    const files = (await walk(tree, undefined, { sniff: false })).length;
    const url = pg.adminUrl('postgres');
    const target = parseStoreUrl(url);

    let started = performance.now();
    const fresh = await indexIntoStore(tree, target, { name: 'jdk' });
    const freshMs = performance.now() - started;

    started = performance.now();
    const memory = await CodeIndex.build(tree, { saved: false });
    const memoryMs = performance.now() - started;

    const store = await PgStore.connect(url);
    const rssBefore = process.memoryUsage.rss();
    started = performance.now();
    const index = await store.open('jdk');
    await index.search('warm up', 5);
    const loadMs = performance.now() - started;
    const loadMb = (process.memoryUsage.rss() - rssBefore) / 1048576;
    const storeTimes = { bm25: [] as number[], hybrid: [] as number[] };
    const memoryTimes = { bm25: [] as number[], hybrid: [] as number[] };
    const equal = { bm25: 0, hybrid: 0 };
    for (const mode of MODES)
      for (const query of JDK_QUERIES) {
        const a = memory.search(query, 5, mode).map((h) => `${h.chunk.path}:${h.chunk.startLine}`);
        const b = (await index.search(query, 5, mode)).map((h) => `${h.chunk.path}:${h.chunk.startLine}`);
        if (a.join() === b.join()) equal[mode]++;
        else
          console.log(`  differs (${mode}): ${query}\n    memory ${a.join(' ')}\n    store  ${b.join(' ')}`);
      }
    for (let round = 0; round < ROUNDS; round++)
      for (const mode of MODES)
        for (const query of JDK_QUERIES) {
          let t = performance.now();
          memory.search(query, 5, mode);
          memoryTimes[mode].push(performance.now() - t);
          t = performance.now();
          await index.search(query, 5, mode);
          storeTimes[mode].push(performance.now() - t);
        }

    started = performance.now();
    const same = await indexIntoStore(tree, target, { name: 'jdk' });
    const sameMs = performance.now() - started;
    const changed = (await walk(tree, undefined, { sniff: false })).slice(0, 20);
    for (const file of changed) await appendFile(join(tree, file.path), '\n// changed for the benchmark\n');
    started = performance.now();
    const some = await indexIntoStore(tree, target, { name: 'jdk' });
    const someMs = performance.now() - started;
    const { default: driver } = await import('pg');
    const client = new driver.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ mb: string }>(
      'SELECT pg_database_size(current_database()) / 1048576 AS mb',
    );
    await client.end();
    await store.close();

    const perSecond = (n: number, t: number) => `${Math.round((n / t) * 1000)} files/s`;
    console.log(
      `search store (PostgreSQL ${postgresBin()?.split('/').at(-2)}) — ${files} files of the JDK (${MODULES.join(', ')}), ${fresh.chunks} chunks, database ${rows[0]?.mb} MB`,
    );
    console.log(
      `  index into the store, fresh:      ${Math.round(freshMs)} ms (${perSecond(fresh.written, freshMs)})`,
    );
    console.log(
      `  again, nothing changed:           ${Math.round(sameMs)} ms (${same.written} written; every file hashed)`,
    );
    console.log(
      `  again, ${changed.length} files changed:          ${Math.round(someMs)} ms (${some.written} written)`,
    );
    console.log(
      `  in-memory build (vectors, no save): ${Math.round(memoryMs)} ms (${perSecond(memory.files, memoryMs)})`,
    );
    console.log(
      `  a server's first search (loads its copy of the postings and vectors): ${Math.round(loadMs)} ms, +${Math.round(loadMb)} MB RSS`,
    );
    for (const mode of MODES) {
      console.log(`  search p50 / p99, ${JDK_QUERIES.length} queries × ${ROUNDS}, ${mode}, top 5:`);
      const [s, m] = [storeTimes[mode], memoryTimes[mode]];
      console.log(`    store      ${ms(percentile(s, 0.5))} / ${ms(percentile(s, 0.99))}`);
      console.log(`    in memory  ${ms(percentile(m, 0.5))} / ${ms(percentile(m, 0.99))}`);
      console.log(
        `    same ranked paths as in memory: ${equal[mode]} of ${JDK_QUERIES.length} queries (fresh tree)`,
      );
    }
  } finally {
    await pg.close();
    rmSync(tree, { recursive: true, force: true });
  }
}

await main();
