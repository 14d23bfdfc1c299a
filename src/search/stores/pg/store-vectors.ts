// The corpus vectors of a repository in the shared store: the model that encodes a query (vocabulary, idf, basis)
// and one int8 row per chunk. The basis is learned once, by the first run that finds the repository without one,
// from every chunk it holds — counted, numbered and learned exactly as a fresh in-memory build of the same tree
// (CodeIndex → learnVectors) — and kept: later runs project only the chunks they write with it, as the in-memory
// index does with a changed file (CodeIndex.withFiles). So the store's vectors are the in-memory index's, bit for
// bit, for the same history of the tree.
import type { PoolClient } from 'pg';
import type { Chunk } from '../../chunks/chunker.js';
import { Bm25Index } from '../../lexical/bm25.js';
import { EncoderTerms, TermEncoder } from '../../lexical/file-terms.js';
import { tokenize } from '../../lexical/tokenize.js';
import { DocVectors } from '../../vectors/chunk-vectors.js';
import { type CorpusModel, CorpusVectors } from '../../vectors/corpus-vectors.js';
import { learnVectors } from '../../vectors/learn-vectors.js';

/** Chunks read per statement while learning (their code is read back to count their terms). */
const PAGE = 2000;

/** A stored model row. */
export interface ModelRow {
  generation: string;
  dimensions: number;
  terms: string;
  idf: Buffer;
  basis: Buffer;
}

/** The model of a stored row (terms one a line; idf and basis float32, little-endian as the machine writes). */
export function modelOf(row: ModelRow): CorpusVectors {
  const floats = (bytes: Buffer) =>
    new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const model: CorpusModel = {
    terms: row.terms === '' ? [] : row.terms.split('\n'),
    idf: floats(row.idf),
    basis: floats(row.basis),
    dimensions: row.dimensions,
  };
  return CorpusVectors.fromModel(model);
}

/** The repository's model, if it has one. */
export async function readModel(client: PoolClient, repo: number): Promise<CorpusVectors | undefined> {
  const { rows } = await client.query<ModelRow>(
    'SELECT generation::text AS generation, dimensions, terms, idf, basis FROM mcpkit_models WHERE repo = $1',
    [repo],
  );
  return rows[0] ? modelOf(rows[0]) : undefined;
}

/**
 * Each chunk's int8 row in a model's space: its terms in all fields, counted as the in-memory index counts them
 * for a changed file (content, names, path; each term once per occurrence).
 */
export function projectChunks(corpus: CorpusVectors, chunks: readonly Chunk[]): Buffer[] {
  const vectors = new DocVectors(corpus.dimensions, Math.max(1, chunks.length));
  chunks.forEach((chunk, i) => {
    const tokens = [
      ...tokenize(chunk.content),
      ...tokenize(chunk.symbols.join(' ')),
      ...tokenize(chunk.path),
    ];
    vectors.set(i, corpus.encode(tokens));
  });
  return rowsOf(vectors, chunks.length);
}

function rowsOf(vectors: DocVectors, count: number): Buffer[] {
  const k = vectors.dimensions;
  const bytes = vectors.bytes();
  // Buffer.from of an Int8Array copies each value as a byte (two's complement), which bytea keeps as is.
  return Array.from({ length: count }, (_, i) =>
    (i + 1) * k <= bytes.length ? Buffer.from(bytes.subarray(i * k, (i + 1) * k)) : Buffer.alloc(k),
  );
}

/** Writes chunks' rows (in the caller's transaction, stamped with its generation). */
export async function writeVectors(
  client: PoolClient,
  repo: number,
  generation: string,
  ids: readonly string[],
  rows: readonly Buffer[],
): Promise<void> {
  if (ids.length === 0) return;
  await client.query(
    `INSERT INTO mcpkit_vectors (chunk, repo, generation, vector)
     SELECT chunk, $1, $2, vector FROM unnest($3::bigint[], $4::bytea[]) AS t(chunk, vector)`,
    [repo, generation, ids, rows],
  );
}

/**
 * Learns the repository's model from every chunk it holds (in chunk-id order: the order a fresh build numbers
 * them) and writes it with every chunk's row, in one transaction that bumps the generation: a search server sees
 * the old state (no vectors) or all of them. Nothing when the repository holds no chunk.
 */
export async function learnStoreVectors(client: PoolClient, repo: number): Promise<boolean> {
  const bm25 = new Bm25Index();
  const encoder = new TermEncoder();
  let table = new EncoderTerms();
  const ids: string[] = [];
  for (let after = '0'; ; ) {
    const { rows } = await client.query<{ id: string; path: string; symbols: string; content: string }>(
      // Ordered by the bigint column, not the text it is read as (where "10000" < "9").
      `SELECT c.id::text AS id, path, symbols, content FROM mcpkit_chunks c WHERE repo = $1 AND c.id > $2
       ORDER BY c.id LIMIT $3`,
      [repo, after, PAGE],
    );
    const chunks: Chunk[] = rows.map((row) => ({
      path: row.path,
      startLine: 0,
      endLine: 0,
      language: '',
      symbols: row.symbols === '' ? [] : row.symbols.split('\n'),
      content: row.content,
    }));
    // Counted and interned as CodeIndex adds a file's chunks: term ids in the order a build first meets them.
    const counted = encoder.encode(chunks);
    table = table.take(counted);
    table.resolve(counted, (term) => bm25.intern(term));
    chunks.forEach((_, c) => {
      bm25.addCounted(
        counted.terms,
        counted.weighted,
        counted.counts,
        counted.lengths[c] as number,
        counted.starts[c] as number,
        counted.starts[c + 1] as number,
      );
    });
    for (const row of rows) ids.push(row.id);
    if (rows.length < PAGE) break;
    after = (rows[rows.length - 1] as { id: string }).id;
  }
  if (ids.length === 0) return false;
  const { corpus, vectors } = await learnVectors(bm25.parts(), (term) => bm25.idOf(term));
  const model = corpus.model();
  await client.query('BEGIN');
  try {
    const { rows: bumped } = await client.query<{ generation: string }>(
      'UPDATE mcpkit_repos SET generation = generation + 1 WHERE id = $1 RETURNING generation',
      [repo],
    );
    const generation = (bumped[0] as { generation: string }).generation;
    await client.query('DELETE FROM mcpkit_vectors WHERE repo = $1', [repo]);
    await client.query(
      `INSERT INTO mcpkit_models (repo, generation, dimensions, terms, idf, basis) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (repo) DO UPDATE SET generation = excluded.generation, dimensions = excluded.dimensions,
         terms = excluded.terms, idf = excluded.idf, basis = excluded.basis`,
      [
        repo,
        generation,
        model.dimensions,
        model.terms.join('\n'),
        Buffer.from(model.idf.buffer, model.idf.byteOffset, model.idf.byteLength),
        Buffer.from(model.basis.buffer, model.basis.byteOffset, model.basis.byteLength),
      ],
    );
    const rows = rowsOf(vectors, ids.length);
    for (let at = 0; at < ids.length; at += PAGE * 5)
      await writeVectors(
        client,
        repo,
        generation,
        ids.slice(at, at + PAGE * 5),
        rows.slice(at, at + PAGE * 5),
      );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return true;
}
