import { Bm25Index } from './bm25.js';
import {
  cosines,
  learnVectors,
  MAX_VECTOR_CHUNKS,
  settledVectors,
  type VectorMatrix,
  type VectorState,
  vectorMatrix,
} from './chunk-vectors.js';
import type { Chunk } from './chunker.js';
import { chunkAll, chunksOf, type IndexReport, stampOf } from './file-chunks.js';
import { type FileStamp, loadSavedIndex, saveIndex } from './index-store.js';
import { languageOf } from './languages.js';
import {
  buildOutputs,
  DEFAULT_RANKING,
  legacyFiles,
  mix,
  type RankingWeights,
  rankChunks,
  type SearchHit,
} from './ranking.js';
import { repoFiles } from './repo-file.js';
import type { StaticModel } from './static-model.js';
import { tokenize } from './tokenize.js';
import { isSkippedDir, type WalkedFile, type WalkOptions, walk, walkOne } from './walk.js';

/** Search modes, the default first. Without vectors, `semantic` and `hybrid` rank as `bm25` does. */
export const SEARCH_MODES = ['hybrid', 'semantic', 'bm25'] as const;
/** How a search ranks: `hybrid` (bm25 and cosine mixed), `semantic` (cosine of vectors) or `bm25` (keywords). */
export type SearchMode = (typeof SEARCH_MODES)[number];

export type { SearchHit } from './ranking.js';

/** Options for {@link CodeIndex.build}. */
export interface BuildOptions {
  /** Use the saved index (`.mcpkit/search-index.json`) where it still matches the files; default true. */
  saved?: boolean;
  /** A static model (`--model DIR`): chunk vectors for the semantic and hybrid modes. */
  model?: StaticModel;
  /**
   * Without a model: `corpus` (default) learns vectors from the indexed code itself (latent semantic analysis,
   * {@link CorpusVectors}) for the semantic and hybrid modes before the build returns; `background` returns as
   * soon as bm25 is ready and learns them after ({@link CodeIndex.vectorsReady}); `none` indexes for bm25 only.
   */
  vectors?: 'corpus' | 'background' | 'none';
  /** Why a saved index was not (wholly) used. */
  onWarning?: (message: string) => void;
  /** After each file: files done, files in all, chunks so far. */
  onProgress?: (done: number, total: number, chunks: number) => void;
}

/**
 * The search index of one repository: chunks from the walker and chunker, BM25 over their content
 * (weight 1), their symbol names (3) and their path (2), and a ranking stack on top — definitions of a
 * queried symbol and path words that match the query go up; tests (unless asked for) and `.d.ts` files go
 * down; every further chunk of a file already in the results counts a little less.
 */
export class CodeIndex {
  private readonly bm25: Bm25Index;
  private readonly byFile = new Map<string, Chunk[]>();
  /** The chunks' vectors, made when the vectors are there or on first use. */
  private matrix: VectorMatrix | undefined;
  /** Files that are build output of an indexed TypeScript source (zod's `v4/core/schemas.js` of `src/v4/core/schemas.ts`). */
  private readonly twins: ReadonlySet<string>;
  /** Files of legacy code (see {@link RankingWeights.legacy}). */
  private readonly legacy: ReadonlySet<string>;

  private constructor(
    readonly root: string,
    readonly chunks: readonly Chunk[],
    /** Every indexed file with the size and mtime its chunks were made from. */
    private readonly stamps: ReadonlyMap<string, FileStamp>,
    /** How the files were walked: {@link withFiles} walks a changed file the same way. */
    private readonly walked: WalkMode,
    /** The vectors, shared with the indexes derived from this one (withFiles), possibly still being learned. */
    private readonly vectors: VectorState,
    /** What the build left out or could not parse (an index derived by withFiles keeps its build's). */
    readonly report: IndexReport,
    /** Each chunk's terms, when the caller has them already. */
    terms?: readonly ChunkTerms[],
    /** Extra chunk sets (database schemas), shared with derived indexes: see {@link withExtraChunks}. */
    private readonly extras: ExtraSets = { sets: new Map() },
  ) {
    this.bm25 = new Bm25Index(
      chunks.map((chunk, i) => {
        const t = terms?.[i] ?? termsOf(chunk);
        return {
          fields: [
            { text: chunk.content, weight: 1, tokens: t.content },
            { text: '', weight: 3, tokens: t.symbols },
            { text: chunk.path, weight: 2, tokens: t.path },
          ],
        };
      }),
    );
    for (const chunk of chunks) {
      const list = this.byFile.get(chunk.path) ?? [];
      list.push(chunk);
      this.byFile.set(chunk.path, list);
    }
    this.twins = buildOutputs(stamps.keys());
    this.legacy = legacyFiles(stamps.keys());
  }

  /** How many files are indexed. */
  get files(): number {
    return this.stamps.size;
  }

  /**
   * Walks, chunks and indexes `root`. A saved index (`mcpkit index`) is used for every file whose size and
   * mtime still match; only the others are chunked again, with a warning saying how many.
   */
  static async build(root: string, options: BuildOptions = {}): Promise<CodeIndex> {
    // The walker does not sniff for binaries: the build reads every file anyway and checks them itself.
    let walked: WalkMode = {};
    let files = await walk(root, undefined, { sniff: false });
    // A package that ships only built code (dist/) is still code to search: index its build output then.
    if (!files.some((file) => languageOf(file.path).grammar)) {
      const built = await walk(root, undefined, { sniff: false, buildDirs: true });
      if (built.some((file) => languageOf(file.path).grammar)) {
        options.onWarning?.(`${root} has no source code outside dist/, build/ or out/; indexing those`);
        files = built;
        walked = { buildDirs: true };
      }
    }
    const saved = options.saved === false ? undefined : await loadSavedIndex(root);
    if (typeof saved === 'string') options.onWarning?.(`${saved}; indexing from scratch`);
    const reusable = typeof saved === 'object' ? saved.files : undefined;
    const twins = buildOutputs(files.map((file) => file.path));
    const { chunks, stamps, rechunked, report } = await chunkAll(root, files, twins, {
      ...(reusable ? { saved: reusable } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    const removed = reusable ? [...reusable.keys()].filter((path) => !stamps.has(path)).length : 0;
    if (reusable && (rechunked > 0 || removed > 0))
      options.onWarning?.(
        `the saved index of ${root} is out of date (${rechunked} files new or changed, ${removed} gone); re-indexed those`,
      );
    const terms = chunks.map(termsOf);
    const make = (vectors: VectorState) =>
      new CodeIndex(root, chunks, stamps, walked, vectors, report, terms);
    if (options.model) return make(settledVectors(options.model)).prepared();
    if (options.vectors === 'none') return make(settledVectors());
    if (chunks.length > MAX_VECTOR_CHUNKS) {
      options.onWarning?.(
        `${chunks.length} chunks is more than corpus vectors are learned for (${MAX_VECTOR_CHUNKS}); searching with bm25 only`,
      );
      return make(settledVectors());
    }
    const vectors = learnVectors(
      chunks,
      terms.map((t) => [...t.symbols, ...t.path, ...t.content]),
      (error) => options.onWarning?.(`cannot learn vectors from ${root}: ${error.message}; bm25 only`),
    );
    const index = make(vectors);
    // The matrix is made as soon as the vectors are there, not by the first query that needs it.
    const ready = vectors.ready.then(() => index.prepared());
    if (options.vectors !== 'background') await ready;
    return index;
  }

  /** Saves the index under the root (`.mcpkit/search-index.json`) for the next start; returns the file. */
  save(): Promise<string> {
    return saveIndex(this.root, this.stamps, this.fileChunks());
  }

  /**
   * A new index with these files read again from disk (changed, added, or gone), chunked exactly as a fresh
   * build would chunk them ({@link walkOne}, {@link chunksOf}): only they are chunked again, plus any file
   * whose standing as build output they change (a source saved beside output already indexed).
   * Paths are relative to the root, with `/`.
   */
  async withFiles(paths: Iterable<string>): Promise<CodeIndex> {
    const stamps = new Map(this.stamps);
    const fresh = new Map<string, WalkedFile>();
    const visit = async (path: string) => {
      stamps.delete(path);
      const file = await walkOne(this.root, path, this.walked);
      if (file) fresh.set(path, file);
    };
    for (const path of new Set(paths)) await visit(path);
    const twins = buildOutputs([...stamps.keys(), ...fresh.keys()]);
    for (const path of [...stamps.keys()]) if (twins.has(path) !== this.twins.has(path)) await visit(path);
    const made = new Map<string, Chunk[]>();
    const reader = repoFiles(this.root);
    for (const file of fresh.values()) {
      const outcome = await chunksOf(reader, file, twins.has(file.path));
      if (!('chunks' in outcome)) continue;
      made.set(file.path, outcome.chunks);
      stamps.set(file.path, stampOf(file));
    }
    // In the walker's order, as a fresh build has them: ties in ranking fall the same way.
    const order = [...stamps.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const chunks = order.flatMap((path) => made.get(path) ?? this.byFile.get(path) ?? []);
    return new CodeIndex(
      this.root,
      // The extra chunk sets (seam below) ride along, the latest of them.
      [...chunks, ...extraChunks(this.extras)],
      new Map(order.map((p) => [p, stamps.get(p) as FileStamp])),
      this.walked,
      this.vectors,
      this.report,
      undefined,
      this.extras,
    );
  }

  // ── Extra chunk sets: the one seam of database schemas (src/search/db/) into the index ──

  /**
   * A new index with the named set of extra chunks (a database's schema, paths like `db/<name>/…`) replaced,
   * or removed when `chunks` is empty. Ranked with the files' chunks in one list. The change is one new index,
   * so a search sees the old set or the new, never half; indexes derived later ({@link withFiles}) keep the
   * latest sets.
   */
  withExtraChunks(name: string, chunks: readonly Chunk[]): CodeIndex {
    if (chunks.length > 0) this.extras.sets.set(name, chunks);
    else this.extras.sets.delete(name);
    return new CodeIndex(
      this.root,
      [...this.fileChunks(), ...extraChunks(this.extras)],
      this.stamps,
      this.walked,
      this.vectors,
      this.report,
      undefined,
      this.extras,
    );
  }

  /** The chunks of files only, without extra sets. */
  private fileChunks(): Chunk[] {
    return this.chunks.filter((chunk) => this.stamps.has(chunk.path));
  }

  /** Whether this index's walk leaves out directories of this name (a watcher need not watch them). */
  skipsDir(name: string): boolean {
    return isSkippedDir(name, this.walked);
  }

  private prepared(): this {
    this.prepareMatrix();
    return this;
  }

  /** Whether semantic and hybrid modes have vectors to use (now: see {@link vectorsReady}). */
  get hasVectors(): boolean {
    return this.vectors.embedder !== undefined;
  }

  /** Settles when vectors learned in the background are there (or failed: then bm25 only). */
  vectorsReady(): Promise<void> {
    return this.vectors.ready;
  }

  /**
   * The best `limit` chunks for a query. `semantic` ranks by the cosine of the chunks' vectors (the
   * corpus's own, or a static model's); `hybrid` adds the bm25 and cosine scores, each divided by its best,
   * the cosine at half weight (measured on bench/search-quality.ts; reciprocal rank fusion lost to bm25 there).
   * Without vectors both rank as `bm25`. The ranking stack applies to every mode.
   */
  search(
    query: string,
    limit = 5,
    mode: SearchMode = 'bm25',
    ranking: Partial<RankingWeights> = {},
  ): SearchHit[] {
    const weights = { ...DEFAULT_RANKING, ...ranking };
    const lexical = this.bm25.scores(query);
    const embedder = this.vectors.embedder;
    if (mode === 'bm25' || !embedder) return this.ranked(lexical, query, limit, undefined, weights);
    const semantic = this.cosines(embedder.encode(query));
    if (mode === 'semantic') return this.ranked(semantic, query, limit, undefined, weights);
    return this.ranked(mix(lexical, semantic, weights.semantic), query, limit, undefined, weights);
  }

  /** The vector matrix of this index's chunks, made now if the vectors are there and it is not yet. */
  private prepareMatrix(): VectorMatrix | undefined {
    const embedder = this.vectors.embedder;
    if (!embedder) return undefined;
    if (this.matrix?.for !== embedder) this.matrix = vectorMatrix(this.chunks, this.vectors, embedder);
    return this.matrix;
  }

  private cosines(query: Float32Array): Float64Array {
    return cosines(this.prepareMatrix(), this.chunks.length, query);
  }

  /** The chunk that holds a line of a file (a line on a boundary belongs to the chunk it ends last). */
  chunkAt(path: string, line: number): Chunk | undefined {
    const chunks = this.byFile.get(path.replace(/^\.\//, '')) ?? [];
    return (
      chunks.find((c) => c.startLine <= line && line < c.endLine) ??
      chunks.find((c) => c.startLine <= line && line <= c.endLine)
    );
  }

  /** Whether a file is in the index. */
  hasFile(path: string): boolean {
    return this.byFile.has(path.replace(/^\.\//, ''));
  }

  /** Chunks like the one given: its symbols and most distinctive words as the query, itself left out. */
  findRelated(chunk: Chunk, limit = 5): SearchHit[] {
    const terms = new Map<string, number>();
    for (const token of tokenize(`${chunk.symbols.join(' ')} ${chunk.content}`))
      terms.set(token, (terms.get(token) ?? 0) + 1);
    const weighted = [...terms.entries()]
      .map(([term, count]) => [term, Math.log(1 + count) * this.bm25.idf(term)] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 32);
    const top = weighted[0]?.[1] ?? 1;
    const raw = this.bm25.scoreTerms(new Map(weighted.map(([term, weight]) => [term, weight / top])));
    return this.ranked(raw, chunk.symbols.join(' '), limit, chunk, DEFAULT_RANKING);
  }

  private ranked(
    raw: Float64Array,
    query: string,
    limit: number,
    exclude: Chunk | undefined,
    weights: Readonly<RankingWeights>,
  ): SearchHit[] {
    return rankChunks(
      raw,
      query,
      limit,
      { chunks: this.chunks, twins: this.twins, legacy: this.legacy, exclude },
      weights,
    );
  }
}

/** Named sets of extra chunks, one object shared by an index and those derived from it. */
interface ExtraSets {
  sets: Map<string, readonly Chunk[]>;
}

const extraChunks = (extras: ExtraSets): Chunk[] => [...extras.sets.values()].flat();
// ── end of the extra chunk sets seam ──

/** How a tree was walked: only its build output is indexed when it has no source code elsewhere. */
type WalkMode = Pick<WalkOptions, 'buildDirs'>;

/** A chunk's terms per BM25 field; the corpus vectors learn from all three. */
interface ChunkTerms {
  content: string[];
  symbols: string[];
  path: string[];
}

const termsOf = (chunk: Chunk): ChunkTerms => ({
  content: tokenize(chunk.content),
  symbols: tokenize(chunk.symbols.join(' ')),
  path: tokenize(chunk.path),
});
