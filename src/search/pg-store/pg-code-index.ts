// A repository's index as the shared store holds it, searched with the same BM25F and ranking stack as the in-memory
// one: the postings come from the store into this server's copy ({@link StoreMirror}), brought up to date before
// each search; the shown chunks' code is read from the store.
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

/** The search index of one repository in the store ({@link SearchableIndex}): bm25 with the full ranking stack. */
export class PgCodeIndex implements SearchableIndex {
  readonly root: string;
  /** The store holds no vectors: semantic and hybrid searches rank as bm25, as the in-memory index without them. */
  readonly hasVectors = false;
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
    const counts = new Map<string, number>();
    for (const token of tokenize(`${chunk.symbols.join(' ')} ${chunk.content}`))
      counts.set(token, (counts.get(token) ?? 0) + 1);
    await this.sync(await this.storeGeneration());
    const { mirror } = this;
    const weighted = [...counts.entries()]
      .map(([term, count]) => [term, Math.log(1 + count) * mirror.idf(term)] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 32);
    const top = weighted[0]?.[1] ?? 1;
    const terms = new Map(weighted.map(([term, weight]) => [term, weight / top]));
    return this.ranked(terms, chunk.symbols.join(' '), limit, this.chunkIds.get(chunk), DEFAULT_RANKING);
  }

  private async ranked(
    terms: ReadonlyMap<string, number>,
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
      const hits = await this.rankOnce(terms, query, limit, exclude, weights);
      let now = await current;
      // Code of a shown chunk gone: a re-index committed after the generation was read (the two reads run side by
      // side), so the generation is read again — returning nothing here would show the file missing for a moment.
      if (hits === undefined && now === used) now = await this.storeGeneration();
      // The store moved meanwhile (a re-index): bring the copy up to date and rank again, a few times at most.
      if ((now === used && hits !== undefined) || attempt === MAX_ATTEMPTS) return hits ?? [];
      await this.sync(now);
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
    terms: ReadonlyMap<string, number>,
    query: string,
    limit: number,
    exclude: string | undefined,
    weights: Readonly<RankingWeights>,
  ): Promise<SearchHit[] | undefined> {
    const { mirror } = this;
    const raw = mirror.scoreTerms(terms);
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
