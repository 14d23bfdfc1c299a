// A repository's index as the shared store holds it, searched with the same ranking stack as the in-memory one:
// PostgreSQL finds and pre-scores the candidates (the chunks holding any query term, from the postings index),
// their exact BM25 scores are computed here as Bm25Index computes them, and rankChunks orders them.
import type { Pool } from 'pg';
import type { Chunk } from '../chunker.js';
import {
  buildOutputs,
  DEFAULT_RANKING,
  legacyFiles,
  type RankingWeights,
  rankChunks,
  type SearchHit,
} from '../ranking.js';
import type { SearchableIndex } from '../searchable-index.js';
import { tokenize } from '../tokenize.js';
import { B, type CorpusStats, K1, scoreCandidate } from './store-postings.js';
import { type StoreTarget, storeFailure } from './store-url.js';

/** A repository row of the store. */
export interface StoredRepo {
  id: number;
  name: string;
  root: string;
}

/**
 * Candidates PostgreSQL scores and returns per query beyond the ranking stack's own pool (`max(limit × 10, 50)`):
 * its float sums may order near-ties differently from ours, so a margin keeps every chunk the stack would see.
 */
const MARGIN = 50;

/**
 * The candidates of weighted terms, best first by PostgreSQL's BM25 (the same formula), with what our exact score
 * and the ranking stack need: each candidate's terms and counts, its place, and the corpus statistics of the same
 * snapshot (one statement: one snapshot, so a file being replaced is seen whole, old or new).
 */
const CANDIDATES = `
WITH r AS (SELECT docs::float8 AS docs, total_length, generation FROM mcpkit_repos WHERE id = $1),
q AS (SELECT term, weight FROM unnest($2::text[], $3::float8[]) AS t(term, weight)),
p AS MATERIALIZED (SELECT term, doc, tf, length FROM mcpkit_postings WHERE repo = $1 AND term = ANY($2::text[])),
d AS (SELECT term, count(*)::float8 AS df FROM p GROUP BY term),
w AS (SELECT d.term, d.df, ln(1 + (r.docs - d.df + 0.5) / (d.df + 0.5)) * q.weight AS idf FROM d JOIN q USING (term), r),
s AS (
  SELECT p.doc, sum(w.idf * (p.tf * ${K1 + 1}) / (p.tf + ${K1} * (${1 - B} + ${B} * p.length / greatest(r.total_length / nullif(r.docs, 0), 1e-9)))) AS score,
    array_agg(p.term) AS terms, array_agg(p.tf) AS tfs, min(p.length) AS length
  FROM p JOIN w USING (term), r GROUP BY p.doc ORDER BY score DESC, p.doc LIMIT $4)
SELECT s.doc::text AS doc, s.terms, s.tfs, s.length, c.path, c.start_line, c.end_line, c.language, c.symbols,
  r.docs, r.total_length, r.generation::text AS generation,
  (SELECT json_object_agg(term, df) FROM w) AS dfs
FROM r LEFT JOIN s ON true LEFT JOIN mcpkit_chunks c ON c.id = s.doc`;

interface CandidateRow {
  doc: string | null;
  terms: string[] | null;
  tfs: number[] | null;
  length: number | null;
  path: string;
  start_line: number;
  end_line: number;
  language: string;
  symbols: string;
  docs: number;
  total_length: number;
  generation: string;
  dfs: Record<string, number> | null;
}

/** The search index of one repository in the store ({@link SearchableIndex}): bm25 with the full ranking stack. */
export class PgCodeIndex implements SearchableIndex {
  readonly root: string;
  /** The store holds no vectors: semantic and hybrid searches rank as bm25, as the in-memory index without them. */
  readonly hasVectors = false;
  private marks: { generation: string; twins: Set<string>; legacy: Set<string> } | undefined;
  /** The chunk id of each chunk this index handed out (find_related leaves the chunk itself out). */
  private readonly docOf = new WeakMap<Chunk, string>();

  constructor(
    private readonly pool: Pool,
    private readonly target: StoreTarget,
    readonly repo: StoredRepo,
  ) {
    this.root = repo.root;
  }

  vectorsReady(): Promise<void> {
    return Promise.resolve();
  }

  /** The best `limit` chunks for a query (every mode ranks as bm25: see {@link hasVectors}). */
  search(
    query: string,
    limit = 5,
    _mode?: string,
    ranking: Partial<RankingWeights> = {},
  ): Promise<SearchHit[]> {
    const terms = new Map([...new Set(tokenize(query))].map((term) => [term, 1]));
    return this.ranked(terms, query, limit, undefined, { ...DEFAULT_RANKING, ...ranking });
  }

  /** The chunk that holds a line of a file (a line on a boundary belongs to the chunk it ends last). */
  async chunkAt(path: string, line: number): Promise<Chunk | undefined> {
    const { rows } = await this.query<ChunkRow & { id: string; content: string }>(
      `SELECT id::text AS id, path, start_line, end_line, language, symbols, content FROM mcpkit_chunks
       WHERE repo = $1 AND path = $2 AND start_line <= $3 AND $3 <= end_line ORDER BY id`,
      [this.repo.id, path.replace(/^\.\//, ''), line],
    );
    const row = rows.find((r) => line < r.end_line) ?? rows[0];
    if (!row) return undefined;
    const chunk = chunkOf(row, row.content);
    this.docOf.set(chunk, row.id);
    return chunk;
  }

  /** Whether a file is in the index. */
  async hasFile(path: string): Promise<boolean> {
    const { rows } = await this.query(
      'SELECT 1 FROM mcpkit_files WHERE repo = $1 AND path = $2 AND indexed',
      [this.repo.id, path.replace(/^\.\//, '')],
    );
    return rows.length > 0;
  }

  /** Chunks like the one given: its symbols and most distinctive words as the query, itself left out. */
  async findRelated(chunk: Chunk, limit = 5): Promise<SearchHit[]> {
    const counts = new Map<string, number>();
    for (const token of tokenize(`${chunk.symbols.join(' ')} ${chunk.content}`))
      counts.set(token, (counts.get(token) ?? 0) + 1);
    const { rows } = await this.query<{ term: string; df: number; docs: number }>(
      `SELECT t.term, count(p.doc)::float8 AS df, (SELECT docs FROM mcpkit_repos WHERE id = $1)::float8 AS docs
       FROM unnest($2::text[]) AS t(term) LEFT JOIN mcpkit_postings p ON p.repo = $1 AND p.term = t.term
       GROUP BY t.term`,
      [this.repo.id, [...counts.keys()]],
    );
    // As CodeIndex.findRelated: each term by log(1 + count) × idf, the best 32, scaled by the best.
    const idf = new Map(
      rows.map((row) => [
        row.term,
        row.df === 0 ? 0 : Math.log(1 + (row.docs - row.df + 0.5) / (row.df + 0.5)),
      ]),
    );
    const weighted = [...counts.entries()]
      .map(([term, count]) => [term, Math.log(1 + count) * (idf.get(term) ?? 0)] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 32);
    const top = weighted[0]?.[1] ?? 1;
    const terms = new Map(weighted.map(([term, weight]) => [term, weight / top]));
    return this.ranked(terms, chunk.symbols.join(' '), limit, this.docOf.get(chunk), DEFAULT_RANKING);
  }

  private async ranked(
    terms: ReadonlyMap<string, number>,
    query: string,
    limit: number,
    exclude: string | undefined,
    weights: Readonly<RankingWeights>,
  ): Promise<SearchHit[]> {
    for (let attempt = 0; ; attempt++) {
      const hits = await this.rankOnce(terms, query, limit, exclude, weights);
      // A chunk replaced between the candidates and its content (a re-index that moment): search the new version.
      if (hits || attempt > 0) return hits ?? [];
    }
  }

  private async rankOnce(
    terms: ReadonlyMap<string, number>,
    query: string,
    limit: number,
    exclude: string | undefined,
    weights: Readonly<RankingWeights>,
  ): Promise<SearchHit[] | undefined> {
    const pool = Math.max(limit * 10, 50) + MARGIN + (exclude ? 1 : 0);
    const { rows } = await this.query<CandidateRow>(CANDIDATES, [
      this.repo.id,
      [...terms.keys()],
      [...terms.values()],
      pool,
    ]);
    const first = rows[0];
    if (!first) return [];
    const stats: CorpusStats = {
      docs: Number(first.docs),
      totalLength: Number(first.total_length),
      df: new Map(Object.entries(first.dfs ?? {})),
    };
    // Candidates in chunk-id order: ties in the ranking stack keep the earlier chunk first, as in memory.
    const candidates = rows
      .filter((row): row is CandidateRow & { doc: string } => row.doc !== null)
      .sort((a, b) => compareIds(a.doc, b.doc));
    const raw = new Float64Array(candidates.length);
    candidates.forEach((row, i) => {
      const tfOf = new Map((row.terms ?? []).map((term, t) => [term, (row.tfs ?? [])[t] as number]));
      raw[i] = scoreCandidate(terms, tfOf, row.length ?? 0, stats);
    });
    const marks = await this.marksOf(first.generation);
    const chunks = candidates.map((row) => chunkOf(row, undefined));
    const hits = rankChunks(
      raw,
      query,
      limit,
      {
        chunkAt: (i) => chunks[i] as Chunk,
        twins: marks.twins,
        legacy: marks.legacy,
        exclude: exclude === undefined ? undefined : candidates.findIndex((row) => row.doc === exclude),
      },
      weights,
    );
    // The shown chunks' code: a chunk's row never changes, so reading it now is reading the snapshot's.
    const ids = hits.map((hit) => candidates[chunks.indexOf(hit.chunk)]?.doc as string);
    const { rows: contents } = await this.query<{ id: string; content: string }>(
      'SELECT id::text AS id, content FROM mcpkit_chunks WHERE id = ANY($1::bigint[])',
      [ids],
    );
    const content = new Map(contents.map((row) => [row.id, row.content]));
    if (ids.some((id) => !content.has(id))) return undefined;
    return hits.map((hit, i) => {
      const chunk = { ...hit.chunk, content: content.get(ids[i] as string) as string };
      this.docOf.set(chunk, ids[i] as string);
      return { chunk, score: hit.score };
    });
  }

  /** Build output and legacy paths of the repository's files, read again when its generation moved. */
  private async marksOf(generation: string): Promise<{ twins: Set<string>; legacy: Set<string> }> {
    if (this.marks?.generation === generation) return this.marks;
    const { rows } = await this.query<{ path: string }>(
      'SELECT path FROM mcpkit_files WHERE repo = $1 AND indexed',
      [this.repo.id],
    );
    const paths = rows.map((row) => row.path);
    this.marks = { generation, twins: buildOutputs(paths), legacy: legacyFiles(paths) };
    return this.marks;
  }

  private async query<R extends object>(text: string, values: unknown[]): Promise<{ rows: R[] }> {
    try {
      return await this.pool.query<R>(text, values);
    } catch (error) {
      throw storeFailure(this.target, error);
    }
  }
}

interface ChunkRow {
  path: string;
  start_line: number;
  end_line: number;
  language: string;
  symbols: string;
}

function chunkOf(row: ChunkRow, content: string | undefined): Chunk {
  return {
    path: row.path,
    startLine: row.start_line,
    endLine: row.end_line,
    language: row.language,
    symbols: row.symbols === '' ? [] : row.symbols.split('\n'),
    content: content ?? '',
  };
}

/** Orders decimal chunk ids (bigint as text) numerically. */
function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
