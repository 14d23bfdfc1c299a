// Database schemas in code search: how long introspection takes for 1,000 tables in each engine (against
// pg_dump --schema-only of the same database), and NDCG@10 on labelled schema queries
// (bench/fixtures/db-schema-queries.json, written before any result was seen) over the shop schema in
// PostgreSQL, MariaDB and SQLite, against a grep over `pg_dump --schema-only` as an agent would run it.
// Needs PostgreSQL and MariaDB from Debian (.ci/run installs them); private servers are started and removed.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodeIndex, type SearchMode } from '../src/search/code-index/code-index.js';
import { parseDbTarget } from '../src/search/db-schemas/db-target.js';
import { withDatabases } from '../src/search/db-schemas/index-databases.js';
import { introspect } from '../src/search/db-schemas/introspect.js';
import { schemaChunks } from '../src/search/db-schemas/schema-chunks.js';
import { loadMariadbShop, loadPostgresShop, writeSqliteShop } from '../test/fixtures/db/load-shop.js';
import {
  type DbServer,
  postgresBin,
  removeOnExit,
  startMariadb,
  startPostgres,
} from '../test/helpers/databases.js';
import { APP } from '../test/search/db-fixture.js';
import { median } from './measure.js';

const require = createRequire(import.meta.url);
const TABLES = 1000;

interface Labelled {
  query: string;
  relevant: Record<string, number>;
}
const { queries } = JSON.parse(
  await readFile(new URL('./fixtures/db-schema-queries.json', import.meta.url), 'utf8'),
) as { queries: Labelled[] };

/** NDCG@10 with graded gains (2^rel - 1) of a ranked list of object names (undefined: not a schema object). */
function ndcg(ranked: (string | undefined)[], relevant: Record<string, number>): number {
  const seen = new Set<string>();
  const list = ranked.filter((o) => o === undefined || (!seen.has(o) && seen.add(o))).slice(0, 10);
  const dcg = list.reduce((sum, o, i) => sum + (2 ** (o ? (relevant[o] ?? 0) : 0) - 1) / Math.log2(i + 2), 0);
  const ideal = Object.values(relevant)
    .sort((a, b) => b - a)
    .slice(0, 10)
    .reduce((sum, rel, i) => sum + (2 ** rel - 1) / Math.log2(i + 2), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
const objectOf = (path: string) =>
  path.startsWith('db/') ? path.split('/')[2]?.replace(/^[^.]+\./, '') : undefined;

/** The labelled queries an engine can answer: relevance limited to the objects it has. */
function answerable(objects: Set<string>): Labelled[] {
  return queries
    .map((q) => ({
      query: q.query,
      relevant: Object.fromEntries(Object.entries(q.relevant).filter(([o]) => objects.has(o))),
    }))
    .filter((q) => Object.keys(q.relevant).length > 0);
}

const STOPWORDS = new Set(
  'a an and are as at by for from how in is it of on or the to was what when where which who with'.split(' '),
);

/**
 * A grep over `pg_dump --schema-only` as agents run it: each line matching any query word (case-insensitive,
 * `grep -i -e w1 -e w2 …`) counts for the object its statement is about; objects ranked by matching lines.
 */
function grepDump(dump: string, query: string): string[] {
  const words = query
    .toLowerCase()
    .split(/[^a-z0-9_]+/)
    .filter((w) => w.length > 1 && !STOPWORDS.has(w));
  const counts = new Map<string, number>();
  let current: string | undefined;
  for (const line of dump.split('\n')) {
    const about =
      /^(?:CREATE (?:TABLE|VIEW|MATERIALIZED VIEW|TYPE|SEQUENCE|(?:OR REPLACE )?FUNCTION|(?:OR REPLACE )?PROCEDURE)|ALTER TABLE(?: ONLY)?|ALTER SEQUENCE|COMMENT ON (?:TABLE|VIEW|TYPE|FUNCTION|PROCEDURE)) (?:public\.)?(\w+)/.exec(
        line,
      )?.[1] ??
      /^COMMENT ON COLUMN (?:public\.)?(\w+)\./.exec(line)?.[1] ??
      /^CREATE (?:UNIQUE )?INDEX \w+ ON (?:ONLY )?(?:public\.)?(\w+)/.exec(line)?.[1];
    if (about) current = about.replace(/_id_seq$/, '');
    if (!current) continue;
    const lower = line.toLowerCase();
    if (words.some((w) => lower.includes(w))) counts.set(current, (counts.get(current) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([o]) => o);
}

async function qualityOf(engine: string, spec: string): Promise<{ n: number; hybrid: number; bm25: number }> {
  const index = await withDatabases(
    await CodeIndex.build(APP, { saved: false }),
    [parseDbTarget(spec, {}, APP)],
    (m) => {
      throw new Error(m);
    },
  );
  const objects = new Set(
    index.chunks.map((c) => objectOf(c.path)).filter((o): o is string => o !== undefined),
  );
  const labelled = answerable(objects);
  const score = (mode: SearchMode) =>
    mean(
      labelled.map((q) =>
        ndcg(
          index.search(q.query, 30, mode).map((h) => objectOf(h.chunk.path)),
          q.relevant,
        ),
      ),
    );
  const result = { n: labelled.length, hybrid: score('hybrid'), bm25: score('bm25') };
  console.log(
    `  ${engine}: ${labelled.length} queries, hybrid ${result.hybrid.toFixed(3)}, bm25 ${result.bm25.toFixed(3)}`,
  );
  return result;
}

function pgDump(bin: string, url: string): { text: string; ms: number } {
  const started = performance.now();
  const result = spawnSync(join(bin, 'pg_dump'), ['--schema-only', '--no-owner', url], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (result.status !== 0) throw new Error(`pg_dump: ${result.stderr}`);
  return { text: result.stdout, ms: performance.now() - started };
}

/** `n` tables like an application's: keys, a foreign key to the one before, a check, an index, comments. */
function manyTables(dialect: 'postgres' | 'mysql' | 'sqlite', n: number): string[] {
  const id = {
    postgres: 'bigserial PRIMARY KEY',
    mysql: 'bigint AUTO_INCREMENT PRIMARY KEY',
    sqlite: 'INTEGER PRIMARY KEY',
  }[dialect];
  const time = dialect === 'postgres' ? 'timestamptz' : dialect === 'mysql' ? 'datetime' : 'TEXT';
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const parent = i > 0 ? `, parent_id bigint REFERENCES entity_${i - 1}(id)` : '';
    const comment = dialect === 'mysql' ? ` COMMENT='Entity ${i} of the generated schema'` : '';
    out.push(
      `CREATE TABLE entity_${i} (id ${id}${parent}, entity_name varchar(200) NOT NULL, created_at ${time} DEFAULT CURRENT_TIMESTAMP, amount_total decimal(10,2), status_code varchar(20) CHECK (status_code IN ('new', 'done')), note text)${comment}`,
      `CREATE INDEX entity_${i}_created ON entity_${i} (created_at)`,
    );
    if (dialect === 'postgres')
      out.push(`COMMENT ON TABLE entity_${i} IS 'Entity ${i} of the generated schema'`);
  }
  return out;
}

async function timeIntrospection(engine: string, spec: string): Promise<number> {
  const target = parseDbTarget(spec, {}, APP);
  const times: number[] = [];
  let chunks = 0;
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    chunks = schemaChunks(target.name, await introspect(target)).length;
    times.push(performance.now() - started);
  }
  const ms = median(times);
  console.log(`  ${engine}: ${chunks} chunks, introspection + chunks ${Math.round(ms)} ms (median of 3)`);
  return ms;
}

const bin = postgresBin();
if (!bin) throw new Error('PostgreSQL is not installed (apt-get install postgresql mariadb-server)');
const dir = await mkdtemp(join(tmpdir(), 'mcpkit-bench-db-'));
removeOnExit(dir);
const servers: DbServer[] = [];
try {
  const pg = await startPostgres();
  servers.push(pg);
  const maria = await startMariadb();
  servers.push(maria);
  await loadPostgresShop(pg.adminUrl);
  await loadMariadbShop(maria.adminUrl);
  const sqliteFile = join(dir, 'shop.sqlite');
  await writeSqliteShop(sqliteFile);

  console.log(
    `schema search quality: NDCG@10 over ${queries.length} labelled queries (objects de-duplicated; code hits count 0)`,
  );
  const pgScore = await qualityOf('postgres', pg.appUrl('shop'));
  await qualityOf('mariadb', maria.appUrl('shop'));
  await qualityOf('sqlite', sqliteFile);
  const dump = pgDump(bin, pg.adminUrl('shop')).text;
  const objects = new Set(
    grepDump(dump, '').concat(
      Object.keys(Object.fromEntries(queries.flatMap((q) => Object.entries(q.relevant)))),
    ),
  );
  const labelled = answerable(objects);
  const grep = mean(labelled.map((q) => ndcg(grepDump(dump, q.query), q.relevant)));
  console.log(
    `  baseline, grep -i over pg_dump --schema-only (postgres, ${labelled.length} queries): ${grep.toFixed(3)}; ours hybrid ${pgScore.hybrid.toFixed(3)} (x${(pgScore.hybrid / grep).toFixed(2)})`,
  );

  console.log(
    `introspection of ${TABLES} tables (each: 6-7 columns, a foreign key, a check, an index, a comment)`,
  );
  const { default: driver } = await import('pg');
  const admin = new driver.Client({ connectionString: pg.adminUrl('postgres') });
  await admin.connect();
  await admin.query('CREATE DATABASE big');
  await admin.end();
  const big = new driver.Client({ connectionString: pg.adminUrl('big') });
  await big.connect();
  await big.query(manyTables('postgres', TABLES).join(';\n'));
  await big.end();
  const pgMs = await timeIntrospection('postgres', pg.adminUrl('big'));
  const dumps = [0, 1, 2].map(() => pgDump(bin, pg.adminUrl('big')).ms);
  console.log(
    `  baseline, pg_dump --schema-only of the same: ${Math.round(median(dumps))} ms (ratio ${(pgMs / median(dumps)).toFixed(2)})`,
  );
  const mysql = await import('mysql2/promise');
  const m = await mysql.createConnection(maria.adminUrl(''));
  await m.query('CREATE DATABASE big');
  await m.query('USE big');
  await m.query('SET SESSION foreign_key_checks = 0');
  for (const statement of manyTables('mysql', TABLES)) await m.query(statement);
  await m.end();
  await timeIntrospection('mariadb', maria.adminUrl('big'));
  const { default: initSqlJs } = await import('sql.js');
  const SQL = await initSqlJs({ locateFile: (f: string) => require.resolve(`sql.js/dist/${f}`) });
  const lite = new SQL.Database() as unknown as {
    run(sql: string): void;
    export(): Uint8Array;
    close(): void;
  };
  for (const statement of manyTables('sqlite', TABLES)) lite.run(statement);
  await writeFile(join(dir, 'big.sqlite'), lite.export());
  lite.close();
  await timeIntrospection('sqlite', join(dir, 'big.sqlite'));
} finally {
  for (const server of servers) await server.close();
  await rm(dir, { recursive: true, force: true });
}
