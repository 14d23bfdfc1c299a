// A repository's index as the shared store holds it, searched with the same BM25F and ranking stack as the in-memory
// one: the postings and corpus vectors come from the store into this server's copy ({@link StoreMirror}), brought
// up to date before each search; the shown chunks' code is read from the store.
import type { Pool } from 'pg';
import type { Chunk } from '../../chunks/chunker.js';
import { tokenize } from '../../lexical/tokenize.js';
import {
  buildOutputs,
  DEFAULT_RANKING,
  legacyFiles,
  type RankingWeights,
  rankChunks,
  type SearchHit,
} from '../../ranking/ranking.js';
import { relatedTerms, type SearchMode, scoresFor } from '../../ranking/search-modes.js';
import type { SearchableIndex } from '../../ranking/searchable-index.js';
import { StoreMirror } from './store-mirror.js';
import { checkout, type StoreTarget, storeFailure } from './store-url.js';

/** How often a search ranks again when the store moved while it ranked (a re-index under way). */
const MAX_ATTEMPTS = 3;

/** A repository row of the store. */
export interface StoredRepo {
  id: number;
  name: string;
  root: string;
}

/**
 * The search index of one repository in the store ({@link SearchableIndex}): bm25, semantic and hybrid with the full
 * ranking stack, as {@link CodeIndex} ranks them.
 */
export class PgCodeIndex implements SearchableIndex {
  readonly root: string;
  private marks: { generation: number; twins: Set<string>; legacy: Set<string> } | undefined;
  private mirror = new StoreMirror();
  private syncing: Promise<void> | undefined;
  /** The document number of each chunk the ranking stack was handed. */
  private readonly docs = new WeakMap<Chunk, number>();
  /** The chunk id of each chunk this index handed out (find_related leaves the chunk itself out). */
  private readonly chunkIds = new WeakMap<Chunk, string>();

  constructor(
    private readonly pool: Pool,
    private readonly target: StoreTarget,
    readonly repo: StoredRepo,
  ) {
    this.root = repo.root;
  }

  /** Whether the copy holds the repository's corpus vectors (as of its last refresh: see {@link load}). */
  get hasVectors(): boolean {
    return this.mirror.hasVectors;
  }

  /** The vectors come with the copy: settles once it is loaded. */
  vectorsReady(): Promise<void> {
    return this.load();
  }

  /** Brings this server's copy to the store's generation (a search does so itself; this answers hasVectors). */
  async load(): Promise<void> {
    await this.sync(await this.storeGeneration());
  }

  /**
   * The best `limit` chunks for a query, ranked in `mode` as {@link CodeIndex.search} ranks them: `semantic` by the
   * cosine of the corpus vectors, `hybrid` by bm25 and cosine mixed; without vectors (or none for the query's
   * words) as bm25.
   */
  search(
    query: string,
    limit = 5,
    mode: SearchMode = 'bm25',
    ranking: Partial<RankingWeights> = {},
  ): Promise<SearchHit[]> {
    const terms = new Map([...new Set(tokenize(query))].map((term) => [term, 1]));
    const weights = { ...DEFAULT_RANKING, ...ranking };
    const score = (mirror: StoreMirror) =>
      scoresFor(mode, {
        lexical: () => mirror.scoreTerms(terms),
        semantic: () => mirror.cosines(query),
        weight: weights.semantic,
      });
    return this.ranked(score, query, limit, undefined, weights);
  }

  /** The chunk that holds a line of a file (a line on a boundary belongs to the chunk it ends last). */
  async chunkAt(path: string, line: number): Promise<Chunk | undefined> {
    const { rows } = await this.query<ChunkRow & { id: string; content: string }>(
      `SELECT c.id::text AS id, path, start_line, end_line, language, symbols, content FROM mcpkit_chunks c
       WHERE repo = $1 AND path = $2 AND start_line <= $3 AND $3 <= end_line ORDER BY c.id`,
      [this.repo.id, path.replace(/^\.\//, ''), line],
    );
    const row = rows.find((r) => line < r.end_line) ?? rows[0];
    if (!row) return undefined;
    const chunk = chunkOf(row, row.content);
    this.chunkIds.set(chunk, row.id);
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
    await this.sync(await this.storeGeneration());
    const { mirror } = this;
    const terms = relatedTerms(chunk, (term) => mirror.idf(term));
    return this.ranked(
      (copy) => copy.scoreTerms(terms),
      chunk.symbols.join(' '),
      limit,
      this.chunkIds.get(chunk),
      DEFAULT_RANKING,
    );
  }

  private async ranked(
    score: (mirror: StoreMirror) => Float64Array,
    query: string,
    limit: number,
    exclude: string | undefined,
    weights: Readonly<RankingWeights>,
  ): Promise<SearchHit[]> {
    if (this.mirror.generation < 0) await this.sync(await this.storeGeneration());
    for (let attempt = 1; ; attempt++) {
      // The store's generation is read while the copy ranks and the shown code is read: one round trip, not two.
      const used = this.mirror.generation;
      const current = this.storeGeneration();
      current.catch(() => undefined);
      const hits = await this.rankOnce(score, query, limit, exclude, weights);
      const now = await current;
      // The store moved meanwhile (a re-index): bring the copy up to date and rank again, a few times at most.
      if (hits && (now === used || attempt === MAX_ATTEMPTS)) return hits;
      if (attempt === MAX_ATTEMPTS) return [];
      // A shown chunk was gone when its code was read: the re-index that took it out committed after the
      // generation was read (the same generation then), so the generation is read again.
      await this.sync(hits ? now : await this.storeGeneration());
    }
  }

  /** The repository's generation in the store now. */
  private async storeGeneration(): Promise<number> {
    const { rows } = await this.query<{ generation: string }>(
      'SELECT generation FROM mcpkit_repos WHERE id = $1',
      [this.repo.id],
    );
    return Number(rows[0]?.generation ?? 0);
  }

  private async rankOnce(
    score: (mirror: StoreMirror) => Float64Array,
    query: string,
    limit: number,
    exclude: string | undefined,
    weights: Readonly<RankingWeights>,
  ): Promise<SearchHit[] | undefined> {
    const { mirror } = this;
    const raw = score(mirror);
    const marks = await this.marksOf(mirror.generation);
    const hits = rankChunks(
      raw,
      query,
      limit,
      {
        chunkAt: (doc) => {
          const chunk = mirror.chunkAt(doc);
          this.docs.set(chunk, doc);
          return chunk;
        },
        twins: marks.twins,
        legacy: marks.legacy,
        exclude: exclude === undefined ? undefined : mirror.docOf(exclude),
      },
      weights,
    );
    // The shown chunks' code: a chunk's row never changes, so reading it now is reading the copy's.
    const docs = hits.map((hit) => this.docs.get(hit.chunk) as number);
    const ids = docs.map((doc) => mirror.idOf(doc));
    const { rows } = await this.query<{ id: string; content: string }>(
      'SELECT id::text AS id, content FROM mcpkit_chunks WHERE id = ANY($1::bigint[])',
      [ids],
    );
    const content = new Map(rows.map((row) => [row.id, row.content]));
    if (ids.some((id) => !content.has(id))) return undefined;
    return hits.map((hit, i) => {
      const chunk = { ...hit.chunk, content: content.get(ids[i] as string) as string };
      this.chunkIds.set(chunk, ids[i] as string);
      return { chunk, score: hit.score };
    });
  }

  /**
   * Brings the copy to the store's generation (read just before; nothing when the copy has it); one refresh at a
   * time, and a copy holding many removed chunks is loaded afresh.
   */
  private async sync(generation: number): Promise<void> {
    if (generation === this.mirror.generation) return;
    this.syncing ??= (async () => {
      const next = this.mirror.wasteful ? new StoreMirror() : this.mirror;
      const client = await checkout(this.pool, this.target);
      try {
        await next.refresh(client, this.repo.id);
      } catch (error) {
        throw storeFailure(this.target, error);
      } finally {
        client.release();
      }
      this.mirror = next;
    })().finally(() => {
      this.syncing = undefined;
    });
    await this.syncing;
  }

  /** Build output and legacy paths of the repository's files, read again when its generation moved. */
  private async marksOf(generation: number): Promise<{ twins: Set<string>; legacy: Set<string> }> {
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
