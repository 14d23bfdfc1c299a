import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { mapConcurrent } from '../internal/concurrency.js';
import { Bm25Index, topK } from './bm25.js';
import { type Chunk, chunkFile } from './chunker.js';
import { CorpusVectors } from './corpus-vectors.js';
import { type FileStamp, loadSavedIndex, saveIndex } from './index-store.js';
import { languageOf } from './languages.js';
import {
  bareName,
  buildOutputs,
  DECLARATION,
  DEFAULT_RANKING,
  EXAMPLE_PATH,
  legacyFiles,
  mix,
  PROSE,
  type RankingWeights,
  TEST_PATH,
} from './ranking.js';
import type { StaticModel } from './static-model.js';
import { tokenize } from './tokenize.js';
import { isIndexable, looksBinary, walk } from './walk.js';

/** Search modes, the default first. Without vectors, `semantic` and `hybrid` rank as `bm25` does. */
export const SEARCH_MODES = ['hybrid', 'semantic', 'bm25'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** One result: a chunk and its score. */
export interface SearchHit {
  chunk: Chunk;
  score: number;
}

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
  /** The chunks' vectors in one contiguous matrix (a query's cosines are one pass), made on first use. */
  private matrix: { for: Embedder; data: Float32Array; dimensions: number } | undefined;
  /** Files that are build output of an indexed TypeScript source (zod's `v4/core/schemas.js` of `src/v4/core/schemas.ts`). */
  private readonly twins: ReadonlySet<string>;
  /** Files of legacy code (see {@link RankingWeights.legacy}). */
  private readonly legacy: ReadonlySet<string>;

  private constructor(
    readonly root: string,
    readonly chunks: readonly Chunk[],
    /** Every indexed file with the size and mtime its chunks were made from. */
    private readonly stamps: ReadonlyMap<string, FileStamp>,
    /** The vectors, shared with the indexes derived from this one (withFiles), possibly still being learned. */
    private readonly vectors: VectorState,
    /** Each chunk's terms, when the caller has them already. */
    terms?: readonly ChunkTerms[],
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
    let files = await walk(root, undefined, { sniff: false });
    // A package that ships only built code (dist/) is still code to search: index its build output then.
    if (!files.some((file) => languageOf(file.path).grammar)) {
      const built = await walk(root, undefined, { sniff: false, buildDirs: true });
      if (built.some((file) => languageOf(file.path).grammar)) {
        options.onWarning?.(`${root} has no source code outside dist/, build/ or out/; indexing those`);
        files = built;
      }
    }
    const saved = options.saved === false ? undefined : await loadSavedIndex(root);
    if (typeof saved === 'string') options.onWarning?.(`${saved}; indexing from scratch`);
    const reusable = typeof saved === 'object' ? saved.files : undefined;
    const chunks: Chunk[] = [];
    const stamps = new Map<string, FileStamp>();
    let done = 0;
    let rechunked = 0;
    // Build output of an indexed TypeScript source ranks low anyway: line windows, no parse (zod: -40% time).
    const outputs = buildOutputs(files.map((file) => file.path));
    // Files are read a batch at a time, concurrently (sequential reads leave the CPU idle), the next batch
    // while this one is chunked, and chunked in order.
    const readBatch = (from: number) =>
      mapConcurrent(files.slice(from, from + READ_BATCH), READ_BATCH, async (file) => {
        const old = reusable?.get(file.path);
        if (old && old.stamp.size === file.size && old.stamp.mtimeMs === file.mtimeMs) return old;
        const text = await readFile(join(root, file.path), 'utf8').catch(() => undefined);
        return text === undefined || looksBinary(text) ? undefined : text;
      });
    let reading = files.length > 0 ? readBatch(0) : undefined;
    for (let from = 0; reading; from += READ_BATCH) {
      const texts = await reading;
      reading = from + READ_BATCH < files.length ? readBatch(from + READ_BATCH) : undefined;
      for (const [i, file] of files.slice(from, from + READ_BATCH).entries()) {
        const stamp = { size: file.size, mtimeMs: file.mtimeMs };
        const text = texts[i];
        if (typeof text === 'object') {
          chunks.push(...text.chunks);
          stamps.set(file.path, stamp);
        } else if (text !== undefined) {
          chunks.push(...(await chunkFile(file.path, text, { syntax: !outputs.has(file.path) })));
          stamps.set(file.path, stamp);
          rechunked++;
        }
        options.onProgress?.(++done, files.length, chunks.length);
      }
    }
    const removed = reusable ? [...reusable.keys()].filter((path) => !stamps.has(path)).length : 0;
    if (reusable && (rechunked > 0 || removed > 0))
      options.onWarning?.(
        `the saved index of ${root} is out of date (${rechunked} files new or changed, ${removed} gone); re-indexed those`,
      );
    const terms = chunks.map(termsOf);
    if (options.model)
      return new CodeIndex(root, chunks, stamps, settledVectors(options.model), terms).prepared();
    if (options.vectors === 'none') return new CodeIndex(root, chunks, stamps, settledVectors(), terms);
    if (chunks.length > MAX_VECTOR_CHUNKS) {
      options.onWarning?.(
        `${chunks.length} chunks is more than corpus vectors are learned for (${MAX_VECTOR_CHUNKS}); searching with bm25 only`,
      );
      return new CodeIndex(root, chunks, stamps, settledVectors(), terms);
    }
    const vectors: VectorState = { known: new WeakMap(), ready: Promise.resolve() };
    vectors.ready = CorpusVectors.build(terms.map((t) => [...t.symbols, ...t.path, ...t.content])).then(
      (corpus) => {
        for (const [i, chunk] of chunks.entries())
          vectors.known.set(chunk, corpus.documents[i] as Float32Array);
        vectors.embedder = { encode: (text: string) => corpus.encode(tokenize(text)) };
      },
      (error: Error) => options.onWarning?.(`cannot learn vectors from ${root}: ${error.message}; bm25 only`),
    );
    const index = new CodeIndex(root, chunks, stamps, vectors, terms);
    // The matrix is made as soon as the vectors are there, not by the first query that needs it.
    const ready = vectors.ready.then(() => index.prepared());
    if (options.vectors !== 'background') await ready;
    return index;
  }

  /** Saves the index under the root (`.mcpkit/search-index.json`) for the next start; returns the file. */
  save(): Promise<string> {
    return saveIndex(this.root, this.stamps, this.chunks);
  }

  /**
   * A new index with these files re-read from disk (changed, added, or gone): only they are chunked again.
   * Paths are relative to the root, with `/`.
   */
  async withFiles(paths: Iterable<string>): Promise<CodeIndex> {
    const changed = new Set(paths);
    const kept = this.chunks.filter((chunk) => !changed.has(chunk.path));
    const stamps = new Map(this.stamps);
    for (const path of changed) {
      stamps.delete(path);
      if (!isIndexable(path)) continue;
      const info = await stat(join(this.root, path)).catch(() => undefined);
      const text = await readFile(join(this.root, path), 'utf8').catch(() => undefined);
      if (!info || text === undefined || text.length > 1024 * 1024 || looksBinary(text)) continue;
      kept.push(...(await chunkFile(path, text)));
      stamps.set(path, { size: info.size, mtimeMs: info.mtimeMs });
    }
    return new CodeIndex(this.root, kept, stamps, this.vectors);
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
    if (mode === 'bm25' || !embedder) return this.rank(lexical, query, limit, undefined, weights);
    const semantic = this.cosines(embedder.encode(query));
    if (mode === 'semantic') return this.rank(semantic, query, limit, undefined, weights);
    return this.rank(mix(lexical, semantic, weights.semantic), query, limit, undefined, weights);
  }

  /** The vector matrix of this index's chunks, made now if the vectors are there and it is not yet. */
  private prepareMatrix(): NonNullable<CodeIndex['matrix']> | undefined {
    const embedder = this.vectors.embedder;
    if (!embedder) return undefined;
    if (this.matrix?.for !== embedder) {
      // Vectors of chunks seen before (by the corpus build or an earlier index) are reused; new ones encoded.
      const rows = this.chunks.map((chunk) => {
        let vector = this.vectors.known.get(chunk);
        if (!vector) {
          vector = embedder.encode(vectorText(chunk));
          this.vectors.known.set(chunk, vector);
        }
        return vector;
      });
      const dimensions = rows[0]?.length ?? 0;
      const data = new Float32Array(rows.length * dimensions);
      for (const [i, row] of rows.entries()) data.set(row, i * dimensions);
      this.matrix = { for: embedder, data, dimensions };
    }
    return this.matrix;
  }

  private cosines(query: Float32Array): Float64Array {
    const { data, dimensions } = this.prepareMatrix() ?? { data: new Float32Array(0), dimensions: 0 };
    const scores = new Float64Array(this.chunks.length);
    for (let i = 0; i < scores.length; i++) {
      let dot = 0;
      const base = i * dimensions;
      for (let d = 0; d < dimensions; d++) dot += (data[base + d] as number) * (query[d] as number);
      scores[i] = dot > 0 ? dot : 0;
    }
    return scores;
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
    return this.rank(raw, chunk.symbols.join(' '), limit, chunk, DEFAULT_RANKING);
  }

  private rank(
    raw: Float64Array,
    query: string,
    limit: number,
    exclude: Chunk | undefined,
    weights: Readonly<RankingWeights>,
  ): SearchHit[] {
    const queryTokens = new Set(tokenize(query));
    const identifiers = new Set(
      (query.match(/[A-Za-z_$][\w$]*/g) ?? [])
        .filter((w) => /[a-z][A-Z]|_|^[A-Z]/.test(w) || queryTokens.size <= 2)
        .map((w) => w.toLowerCase()),
    );
    const wantsTests = /\btests?\b|\bspec\b/i.test(query);
    const wantsExamples = /\b(examples?|demos?|samples?|bench\w*)\b/i.test(query);
    const wantsLegacy = /\b(legacy|compat\w*|deprecated|old|v\d+)\b/i.test(query);
    const wantsDocs = /\b(docs?|documentation|readme|changelog|guide|history)\b/i.test(query);
    const candidates = topK(raw, Math.max(limit * 10, 50));
    const scored = candidates.flatMap(({ doc, score }) => {
      const chunk = this.chunks[doc] as Chunk;
      if (chunk === exclude) return [];
      let value = score;
      if (chunk.symbols.some((s) => identifiers.has(s.toLowerCase()) || identifiers.has(bareName(s))))
        value *= 1 + weights.definition;
      const pathTokens = new Set(tokenize(chunk.path));
      let pathHits = 0;
      for (const token of queryTokens) if (pathTokens.has(token)) pathHits++;
      if (queryTokens.size > 0) value *= 1 + (weights.path * pathHits) / queryTokens.size;
      if (!wantsTests && TEST_PATH.test(chunk.path)) value *= weights.test;
      if (!wantsLegacy && this.legacy.has(chunk.path)) value *= weights.legacy;
      if (!wantsExamples && EXAMPLE_PATH.test(chunk.path)) value *= weights.examples;
      if (DECLARATION.test(chunk.path)) value *= weights.declaration;
      if (this.twins.has(chunk.path)) value *= weights.twin;
      if (!wantsDocs && PROSE.has(chunk.language)) value *= weights.docs;
      return [{ chunk, score: value }];
    });
    scored.sort((a, b) => b.score - a.score);
    // File diversity: the n-th chunk of a file already shown counts sameFile^n of its score.
    const seen = new Map<string, number>();
    const diverse = scored.map((hit) => {
      const n = seen.get(hit.chunk.path) ?? 0;
      seen.set(hit.chunk.path, n + 1);
      return { chunk: hit.chunk, score: hit.score * weights.sameFile ** n };
    });
    diverse.sort((a, b) => b.score - a.score);
    return diverse.slice(0, limit);
  }
}

/** Above this many chunks, learning vectors would take minutes and gigabytes: bm25 only. */
const MAX_VECTOR_CHUNKS = 150_000;

/** Files read at once while indexing. */
const READ_BATCH = 64;

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

/** Anything that turns text into a unit vector: a static model, or vectors learned from the corpus. */
interface Embedder {
  encode(text: string): Float32Array;
}

/** An index's vectors: what encodes text (once learned) and the vectors of chunks already encoded. */
interface VectorState {
  embedder?: Embedder;
  known: WeakMap<Chunk, Float32Array>;
  ready: Promise<void>;
}

const settledVectors = (embedder?: Embedder): VectorState => ({
  ...(embedder ? { embedder } : {}),
  known: new WeakMap(),
  ready: Promise.resolve(),
});

/** What a chunk's vector is made of: its names, path words and code. */
const vectorText = (chunk: Chunk) => `${chunk.symbols.join(' ')} ${chunk.path} ${chunk.content}`;

/** Results as text for an agent: a header, then numbered hits with path:lines, score and the code. */
export function formatResults(header: string, hits: readonly SearchHit[]): string {
  const max = hits[0]?.score ?? 1;
  const blocks = hits.map(({ chunk, score }, i) => {
    const fence = chunk.content.includes('```') ? '````' : '```';
    const language = chunk.language === 'text' ? '' : chunk.language;
    return `${i + 1}. ${chunk.path}:${chunk.startLine}-${chunk.endLine} (score=${(score / max).toFixed(3)})\n${fence}${language}\n${chunk.content}\n${fence}`;
  });
  return `${header}\n\n${blocks.join('\n\n')}`;
}
