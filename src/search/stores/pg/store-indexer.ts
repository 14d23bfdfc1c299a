// `mcpkit index <path> --store postgres://…`: a repository's chunks, postings and file hashes written to the shared
// store. Only files whose content hash changed are chunked and written again; each batch of files is replaced in
// one transaction (a search sees a file's old chunks or its new ones, never half); writers of one repository
// take its advisory lock, so two indexers at once run one after the other and the second finds nothing to do.
// Each chunk's corpus vector is written with it (store-vectors.ts: the first run learns the basis, then keeps it).
import { createHash } from 'node:crypto';
import { basename, join, resolve } from 'node:path';
import type { PoolClient } from 'pg';
import { mapConcurrent } from '../../../internal/concurrency.js';
import type { Chunk } from '../../chunks/chunker.js';
import { chunkAll, type IndexReport } from '../../chunks/file-chunks.js';
import { repoFiles } from '../../files/repo-file.js';
import { checkSearchRoot } from '../../files/search-root.js';
import { MAX_BYTES, type WalkedFile, walk } from '../../files/walk.js';
import { tokenize } from '../../lexical/tokenize.js';
import { buildOutputs } from '../../ranking/ranking.js';
import type { CorpusVectors } from '../../vectors/corpus-vectors.js';
import { ensureSchema, repoLockKey } from './schema.js';
import { chunkPostings } from './store-postings.js';
import { checkout, type StoreTarget, storeFailure, storePool } from './store-url.js';
import { learnStoreVectors, projectChunks, readModel, writeVectors } from './store-vectors.js';

/** Options for {@link indexIntoStore}. */
export interface StoreIndexOptions {
  /** The repository's name in the store (what a search's `repo` says); default the directory's base name. */
  name?: string;
  /** Another indexer holds the repository: this one waits for it (said once). */
  onWarning?: (message: string) => void;
  /** After each file looked at: files done, files in all. */
  onProgress?: (done: number, total: number) => void;
  /**
   * false (`--no-vectors`): a repository without a model learns none (it ranks as bm25); one with a model still
   * gets rows for the chunks written, so its vectors stay whole. Default true.
   */
  vectors?: boolean;
}

/** What an indexing run did. */
export interface StoreIndexResult {
  name: string;
  /** Files in the store for the repository now (text files with chunks). */
  files: number;
  /** Chunks in the store for the repository now. */
  chunks: number;
  /** Files chunked and written by this run (new or changed). */
  written: number;
  /** Files taken out (gone from the tree). */
  removed: number;
  /** Whether this run waited for another indexer of the same repository. */
  waited: boolean;
  report: IndexReport;
}

/** Files read and hashed at once. */
const CONCURRENCY = 32;
/** Files chunked and written per transaction, unless their postings pass {@link BATCH_POSTINGS} first. */
const BATCH_FILES = 128;
const BATCH_POSTINGS = 60_000;

interface Stored {
  hash: string;
  twin: boolean;
}

interface Walked {
  file: WalkedFile;
  hash: string;
  twin: boolean;
}

/** Indexes `root` into the store (incrementally: changed files only); resolves once every write is committed. */
export async function indexIntoStore(
  root: string,
  target: StoreTarget,
  options: StoreIndexOptions = {},
): Promise<StoreIndexResult> {
  const dir = resolve(root);
  await checkSearchRoot(dir);
  const name = options.name ?? basename(dir);
  const pool = await storePool(target, 1);
  try {
    const client = await checkout(pool, target);
    try {
      return await run(client, dir, name, options);
    } catch (error) {
      throw storeFailure(target, error);
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
}

async function run(
  client: PoolClient,
  root: string,
  name: string,
  options: StoreIndexOptions,
): Promise<StoreIndexResult> {
  await ensureSchema(client);
  const key = repoLockKey(name);
  const { rows: tried } = await client.query<{ ok: boolean }>(
    'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok',
    [key],
  );
  const waited = !tried[0]?.ok;
  if (waited) {
    options.onWarning?.(`another indexer is writing ${name}; waiting for it to finish`);
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
  }
  try {
    const { rows } = await client.query<{ id: number }>(
      `INSERT INTO mcpkit_repos (name, root) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET root = excluded.root RETURNING id`,
      [name, root],
    );
    const repo = (rows[0] as { id: number }).id;
    const stored = new Map<string, Stored>();
    const { rows: files } = await client.query<{ path: string; hash: string; twin: boolean }>(
      'SELECT path, hash, twin FROM mcpkit_files WHERE repo = $1',
      [repo],
    );
    for (const row of files) stored.set(row.path, { hash: row.hash, twin: row.twin });
    // The basis learned by the repository's first run, kept: this run projects the chunks it writes with it.
    const corpus = await readModel(client, repo);

    const walked = await hashTree(root);
    const seen = new Set(walked.map((w) => w.file.path));
    const removed = [...stored.keys()].filter((path) => !seen.has(path));
    const changed = walked.filter((w) => {
      const before = stored.get(w.file.path);
      return !before || before.hash !== w.hash || before.twin !== w.twin;
    });
    let done = walked.length - changed.length;
    options.onProgress?.(done, walked.length);
    const report: IndexReport = { notText: 0, longLines: 0, windowed: 0 };
    if (removed.length > 0) await writeBatch(client, repo, [], removed, corpus);
    const twins = new Set(changed.filter((w) => w.twin).map((w) => w.file.path));
    const byPath = new Map(changed.map((w) => [w.file.path, w]));
    const chunkSlice = async (at: number) => {
      const made: Made[] = [];
      let postings = 0;
      const part = await chunkAll(
        root,
        changed.slice(at, at + BATCH_FILES).map((w) => w.file),
        twins,
        (file, chunks) => {
          made.push({ walked: byPath.get(file.path) as Walked, chunks });
          postings += (chunks ?? []).reduce((n, chunk) => n + chunk.content.length / 8, 0);
        },
      );
      report.notText += part.notText;
      report.longLines += part.longLines;
      report.windowed += part.windowed;
      return { made, postings };
    };
    // The next slice is chunked here while PostgreSQL writes this one: the two overlap on two cores.
    let next = changed.length > 0 ? chunkSlice(0) : undefined;
    for (let at = 0; next; at += BATCH_FILES) {
      const { made, postings } = await next;
      next = at + BATCH_FILES < changed.length ? chunkSlice(at + BATCH_FILES) : undefined;
      // Awaited next round; a write failing first must not leave its rejection unhandled.
      next?.catch(() => undefined);
      // A slice of large files is written in several transactions (each file whole in one).
      const step = Math.max(1, Math.floor(made.length / Math.ceil(postings / BATCH_POSTINGS || 1)));
      for (let i = 0; i < made.length; i += step) {
        await writeBatch(client, repo, made.slice(i, i + step), [], corpus);
        done += Math.min(step, made.length - i);
        options.onProgress?.(done, walked.length);
      }
    }
    // A repository without a model (its first run, or a store from before vectors) learns one from all it holds.
    if (!corpus && options.vectors !== false) await learnStoreVectors(client, repo);
    // Fresh statistics for the planner after a large write.
    if (changed.length > 1000) await client.query('ANALYZE mcpkit_chunks, mcpkit_files');
    const { rows: counts } = await client.query<{ files: string; chunks: string }>(
      `SELECT (SELECT count(*) FROM mcpkit_files WHERE repo = $1 AND indexed) AS files,
              (SELECT docs FROM mcpkit_repos WHERE id = $1) AS chunks`,
      [repo],
    );
    return {
      name,
      files: Number(counts[0]?.files ?? 0),
      chunks: Number(counts[0]?.chunks ?? 0),
      written: changed.length,
      removed: removed.length,
      waited,
      report,
    };
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]);
  }
}

/** The tree's files as a fresh in-memory build walks them, each with its content hash and build-output standing. */
async function hashTree(root: string): Promise<Walked[]> {
  const files = await walk(root, undefined, { sniff: false });
  const twins = buildOutputs(files.map((file) => file.path));
  const reader = repoFiles(root);
  const hashed = await mapConcurrent(files, CONCURRENCY, async (file) => {
    const bytes = await reader.read(join(root, file.path), { maxBytes: MAX_BYTES });
    if (!bytes) return undefined;
    return { file, hash: createHash('sha256').update(bytes).digest('hex'), twin: twins.has(file.path) };
  });
  return hashed.filter((w): w is Walked => w !== undefined);
}

interface Made {
  walked: Walked;
  /** Undefined for a file left out (not text, machine-made): its hash is kept, so it is not read again. */
  chunks: Chunk[] | undefined;
}

/**
 * Replaces these files' chunks and postings (and takes out `removed` files) in one transaction, with the
 * repository's statistics and generation: a search reads all of it or none.
 */
async function writeBatch(
  client: PoolClient,
  repo: number,
  made: readonly Made[],
  removed: readonly string[],
  corpus: CorpusVectors | undefined,
): Promise<void> {
  const chunks: { chunk: Chunk; terms: string[]; tfs: number[]; length: number }[] = [];
  for (const { walked, chunks: list } of made) {
    const pathTokens = tokenize(walked.file.path);
    for (const chunk of list ?? []) chunks.push({ chunk, ...chunkPostings(chunk, pathTokens) });
  }
  await client.query('BEGIN');
  try {
    const { rows: bumped } = await client.query<{ generation: string }>(
      'UPDATE mcpkit_repos SET generation = generation + 1 WHERE id = $1 RETURNING generation',
      [repo],
    );
    const generation = (bumped[0] as { generation: string }).generation;
    const paths = [...made.map((m) => m.walked.file.path), ...removed];
    const { rows: gone } = await client.query<{ n: string; total: number }>(
      `WITH gone AS (DELETE FROM mcpkit_chunks WHERE repo = $1 AND path = ANY($2::text[]) RETURNING id, length),
            tombstones AS (INSERT INTO mcpkit_removed (repo, generation, doc) SELECT $1, $3, id FROM gone)
       SELECT count(*) AS n, coalesce(sum(length), 0)::float8 AS total FROM gone`,
      [repo, paths, generation],
    );
    // Ids in the chunks' order: a store's ties then break as the in-memory index's do (the earlier chunk first).
    const { rows: ids } = await client.query<{ id: string }>(
      "SELECT nextval('mcpkit_chunks_id_seq') AS id FROM generate_series(1, $1)",
      [chunks.length],
    );
    const docs = ids.map((row) => BigInt(row.id)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (chunks.length > 0) {
      await client.query(
        `INSERT INTO mcpkit_chunks
           (id, repo, path, start_line, end_line, language, symbols, content, length, postings, generation)
         SELECT id, $1, path, s, e, l, sy, c, len, p, $11
         FROM unnest($2::bigint[], $3::text[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::real[],
           $10::text[]) AS t(id, path, s, e, l, sy, c, len, p)`,
        [
          repo,
          docs.map(String),
          chunks.map((c) => c.chunk.path),
          chunks.map((c) => c.chunk.startLine),
          chunks.map((c) => c.chunk.endLine),
          chunks.map((c) => c.chunk.language),
          chunks.map((c) => c.chunk.symbols.join('\n')),
          chunks.map((c) => c.chunk.content.replaceAll('\u0000', '')),
          chunks.map((c) => c.length),
          // A line "term tf" per term (terms are letters and digits): one string per chunk is far cheaper to write
          // and read than a row per posting.
          chunks.map((c) => c.terms.map((term, t) => `${term} ${c.tfs[t]}`).join('\n')),
          generation,
        ],
      );
    }
    if (corpus)
      await writeVectors(
        client,
        repo,
        generation,
        docs.map(String),
        projectChunks(
          corpus,
          chunks.map((c) => c.chunk),
        ),
      );
    if (made.length > 0)
      await client.query(
        `INSERT INTO mcpkit_files (repo, path, hash, twin, indexed)
         SELECT $1, path, hash, twin, indexed FROM unnest($2::text[], $3::text[], $4::boolean[], $5::boolean[])
           AS t(path, hash, twin, indexed)
         ON CONFLICT (repo, path) DO UPDATE SET hash = excluded.hash, twin = excluded.twin, indexed = excluded.indexed`,
        [
          repo,
          made.map((m) => m.walked.file.path),
          made.map((m) => m.walked.hash),
          made.map((m) => m.walked.twin),
          made.map((m) => m.chunks !== undefined),
        ],
      );
    if (removed.length > 0)
      await client.query('DELETE FROM mcpkit_files WHERE repo = $1 AND path = ANY($2::text[])', [
        repo,
        removed,
      ]);
    const added = chunks.reduce((sum, c) => sum + c.length, 0);
    await client.query(
      `UPDATE mcpkit_repos SET docs = docs - $2 + $3, total_length = total_length - $4 + $5 WHERE id = $1`,
      [repo, Number(gone[0]?.n ?? 0), chunks.length, gone[0]?.total ?? 0, added],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
