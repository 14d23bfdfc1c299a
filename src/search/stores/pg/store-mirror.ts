// A search server's copy of one repository's postings from the store, scored in memory. PostgreSQL summing the
// postings of a query's words took 56-283 ms per query at 57k-165k chunks (bench/search-store.ts; a GIN-indexed
// tsvector finds the same candidates and still leaves their term counts to read), against ~2 ms in memory: so the
// store is the one copy every server loads from — no walk, no chunking, no tokenizing — and each server keeps the
// postings in memory, brought up to date before every search by what changed since the generation it holds.
import type { PoolClient } from 'pg';
import type { Chunk } from '../../chunks/chunker.js';
import { doubled, GrowingInts } from '../../lexical/postings.js';
import { tokenize } from '../../lexical/tokenize.js';
import { DocVectors } from '../../vectors/chunk-vectors.js';
import type { CorpusVectors } from '../../vectors/corpus-vectors.js';
import { B, K1 } from './store-postings.js';
import { type ModelRow, modelOf } from './store-vectors.js';

interface TermPostings {
  docs: GrowingInts;
  tfs: GrowingInts;
}

/** A chunk as the ranking stack sees it (its code is read from the store only for the hits shown). */
type ChunkMeta = Omit<Chunk, 'content'>;

/** What changed since a generation, read in one snapshot. */
interface Delta {
  generation: number;
  removed: string[];
  added: { id: string; meta: ChunkMeta; length: number; postings: string }[];
  /** The repository's model, when it was (re)learned since. */
  model: ModelRow | undefined;
  /** Chunks' int8 rows written since. */
  vectors: { id: string; vector: Buffer }[];
}

/**
 * One repository's postings, documents numbered in chunk-id order (the order a fresh in-memory build numbers them:
 * ties rank alike). Statistics count live chunks only — what a fresh build of the current tree counts — so every
 * server of one store, however long it has run, scores alike.
 */
export class StoreMirror {
  /** Chunks read per statement while loading (a large repository's postings are read in pages); tests lower it. */
  static pageSize = 5000;
  generation = -1;
  private ids: string[] = [];
  private readonly local = new Map<string, number>();
  private meta: ChunkMeta[] = [];
  private lengths = new Float32Array(1024);
  private alive = new Uint8Array(1024);
  private postings = new Map<string, TermPostings>();
  private liveDocs = 0;
  private liveLength = 0;
  private corpus: CorpusVectors | undefined;
  private vectors: DocVectors | undefined;

  /** How many document numbers there are (removed ones included). */
  get size(): number {
    return this.ids.length;
  }

  /** A document's chunk id in the store. */
  idOf(doc: number): string {
    return this.ids[doc] as string;
  }

  /** A chunk id's document number, if the copy holds it. */
  docOf(id: string): number | undefined {
    return this.local.get(id);
  }

  /** A document as a chunk without its code. */
  chunkAt(doc: number): Chunk {
    return { ...(this.meta[doc] as ChunkMeta), content: '' };
  }

  /** Whether this copy has more removed documents than it should keep (then it is loaded afresh). */
  get wasteful(): boolean {
    const dead = this.ids.length - this.liveDocs;
    return dead > 10_000 && dead > this.liveDocs / 4;
  }

  /** Brings this copy to the store's generation, in one read-only snapshot. */
  async refresh(client: PoolClient, repo: number): Promise<void> {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      const delta = await readDelta(client, repo, this.generation);
      await client.query('COMMIT');
      this.apply(delta);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /** Applies a delta with no await in between: a search sees the copy before or after, never half. */
  private apply(delta: Delta): void {
    for (const id of delta.removed) {
      const doc = this.local.get(id);
      if (doc === undefined || !this.alive[doc]) continue;
      this.alive[doc] = 0;
      this.local.delete(id);
      this.liveDocs--;
      this.liveLength -= this.lengths[doc] as number;
    }
    for (const chunk of delta.added) {
      if (this.local.has(chunk.id)) continue;
      const doc = this.ids.length;
      this.grow(doc + 1);
      this.ids.push(chunk.id);
      this.local.set(chunk.id, doc);
      this.meta.push(chunk.meta);
      this.lengths[doc] = chunk.length;
      this.alive[doc] = 1;
      this.liveDocs++;
      this.liveLength += chunk.length;
      for (const line of chunk.postings === '' ? [] : chunk.postings.split('\n')) {
        const space = line.lastIndexOf(' ');
        const term = line.slice(0, space);
        let list = this.postings.get(term);
        if (!list) {
          list = { docs: new GrowingInts(4), tfs: new GrowingInts(4) };
          this.postings.set(term, list);
        }
        list.docs.push(doc);
        list.tfs.push(Number(line.slice(space + 1)));
      }
    }
    if (delta.model) {
      // A model learned anew comes with every chunk's row in the same delta.
      this.corpus = modelOf(delta.model);
      this.vectors = new DocVectors(this.corpus.dimensions, Math.max(1, this.ids.length));
    }
    const { vectors } = this;
    if (vectors)
      for (const row of delta.vectors) {
        const doc = this.local.get(row.id);
        if (doc === undefined) continue;
        const bytes = new Int8Array(row.vector.buffer, row.vector.byteOffset, row.vector.byteLength);
        // Back to the unit vector the row was quantized from: DocVectors quantizes it to the same bytes.
        vectors.set(
          doc,
          Float32Array.from(bytes, (x) => x / 127),
        );
      }
    this.generation = delta.generation;
  }

  /** Whether the copy holds the repository's corpus vectors (semantic and hybrid have something to rank by). */
  get hasVectors(): boolean {
    return this.vectors !== undefined;
  }

  /**
   * Every document's cosine with a query's vector, as {@link CodeIndex.search} computes it (0 if removed);
   * undefined without vectors, or when no word of the query has one (then bm25 answers).
   */
  cosines(query: string): Float64Array | undefined {
    const { corpus, vectors } = this;
    if (!corpus || !vectors) return undefined;
    const encoded = corpus.encode(tokenize(query));
    if (!encoded.some((x) => x !== 0)) return undefined;
    const scores = vectors.cosines(encoded, this.ids.length);
    if (this.liveDocs < this.ids.length)
      for (let doc = 0; doc < scores.length; doc++) if (!this.alive[doc]) scores[doc] = 0;
    return scores;
  }

  private grow(size: number): void {
    if (size <= this.lengths.length) return;
    this.lengths = doubled(this.lengths);
    this.alive = doubled(this.alive);
  }

  /** Live chunks holding a term. */
  df(term: string): number {
    const list = this.postings.get(term);
    if (!list) return 0;
    if (this.liveDocs === this.ids.length) return list.docs.length;
    let df = 0;
    for (let p = 0; p < list.docs.length; p++) if (this.alive[list.docs.at(p)]) df++;
    return df;
  }

  /** Inverse document frequency, as {@link Bm25Index.idf} computes it over live chunks; 0 for an unknown term. */
  idf(term: string): number {
    const df = this.df(term);
    return df === 0 ? 0 : Math.log(1 + (this.liveDocs - df + 0.5) / (df + 0.5));
  }

  /** Every document's BM25 score for weighted terms, as {@link Bm25Index.scoreTerms} computes it (0 if removed). */
  scoreTerms(terms: ReadonlyMap<string, number>): Float64Array {
    const scores = new Float64Array(this.ids.length);
    const { lengths, alive } = this;
    const averageLength = this.liveDocs > 0 ? this.liveLength / this.liveDocs || 1 : 1;
    for (const [term, weight] of terms) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = this.idf(term) * weight;
      for (let p = 0; p < list.docs.length; p++) {
        const doc = list.docs.at(p);
        const tf = list.tfs.at(p);
        const norm = K1 * (1 - B + (B * (lengths[doc] as number)) / averageLength);
        scores[doc] = (scores[doc] as number) + (idf * (tf * (K1 + 1))) / (tf + norm);
      }
    }
    if (this.liveDocs < this.ids.length)
      for (let doc = 0; doc < this.ids.length; doc++) if (!alive[doc]) scores[doc] = 0;
    return scores;
  }
}

/** What changed in a repository since generation `since` (everything, from -1), in the transaction's snapshot. */
async function readDelta(client: PoolClient, repo: number, since: number): Promise<Delta> {
  // A store of version 1 has no vector tables until its next index run adds them: then no vectors, bm25.
  const { rows: head } = await client.query<{ generation: string; vectors: boolean }>(
    `SELECT generation, to_regclass('mcpkit_vectors') IS NOT NULL AS vectors FROM mcpkit_repos WHERE id = $1`,
    [repo],
  );
  const generation = Number(head[0]?.generation ?? 0);
  const withVectors = head[0]?.vectors === true;
  const removed =
    since < 0
      ? []
      : (
          await client.query<{ doc: string }>(
            'SELECT doc::text AS doc FROM mcpkit_removed WHERE repo = $1 AND generation > $2',
            [repo, since],
          )
        ).rows.map((row) => row.doc);
  const added: Delta['added'] = [];
  for (let after = '0'; ; ) {
    const { rows } = await client.query<ChunkRow>(
      // Ordered by the bigint column, not the text it is read as (where "10000" < "9").
      `SELECT c.id::text AS id, path, start_line, end_line, language, symbols, length, postings
       FROM mcpkit_chunks c WHERE repo = $1 AND generation > $2 AND c.id > $3 ORDER BY c.id LIMIT $4`,
      [repo, since, after, StoreMirror.pageSize],
    );
    for (const row of rows)
      added.push({
        id: row.id,
        length: row.length,
        postings: row.postings,
        meta: {
          path: row.path,
          startLine: row.start_line,
          endLine: row.end_line,
          language: row.language,
          symbols: row.symbols === '' ? [] : row.symbols.split('\n'),
        },
      });
    if (rows.length < StoreMirror.pageSize) break;
    after = (rows[rows.length - 1] as ChunkRow).id;
  }
  if (!withVectors) return { generation, removed, added, model: undefined, vectors: [] };
  const { rows: models } = await client.query<ModelRow>(
    `SELECT generation::text AS generation, dimensions, terms, idf, basis FROM mcpkit_models
     WHERE repo = $1 AND generation > $2`,
    [repo, since],
  );
  const vectors: Delta['vectors'] = [];
  for (let after = '0'; ; ) {
    const { rows } = await client.query<{ id: string; vector: Buffer }>(
      `SELECT chunk::text AS id, vector FROM mcpkit_vectors WHERE repo = $1 AND generation > $2 AND chunk > $3
       ORDER BY chunk LIMIT $4`,
      [repo, since, after, StoreMirror.pageSize * 4],
    );
    vectors.push(...rows);
    if (rows.length < StoreMirror.pageSize * 4) break;
    after = (rows[rows.length - 1] as { id: string }).id;
  }
  return { generation, removed, added, model: models[0], vectors };
}

interface ChunkRow {
  id: string;
  path: string;
  start_line: number;
  end_line: number;
  language: string;
  symbols: string;
  length: number;
  postings: string;
}
