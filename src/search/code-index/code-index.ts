import { join } from 'node:path';
import { count } from '../../internal/plural.js';
import type { Chunk } from '../chunks/chunker.js';
import { chunksOf, type IndexReport, stampOf } from '../chunks/file-chunks.js';
import { languageOf } from '../chunks/languages.js';
import { repoFiles } from '../files/repo-file.js';
import { checkSearchRoot } from '../files/search-root.js';
import {
  explainEmpty,
  isSkippedDir,
  MAX_BYTES,
  type WalkedFile,
  type WalkOptions,
  walk,
  walkOne,
} from '../files/walk.js';
import { Bm25Index } from '../lexical/bm25.js';
import { type CountedFile, chunkFiles } from '../lexical/chunk-pool.js';
import { EncoderTerms, type FileTerms, TermEncoder } from '../lexical/file-terms.js';
import { tokenize } from '../lexical/tokenize.js';
import {
  buildOutputs,
  DEFAULT_RANKING,
  legacyFiles,
  mix,
  type RankingWeights,
  rankChunks,
  type SearchHit,
} from '../ranking/ranking.js';
import {
  type ChunkPlace,
  type FileStamp,
  INDEX_FILE,
  loadSavedIndex,
  type SavedIndex,
  saveIndex,
} from '../stores/saved-index.js';
import { DocVectors, type Embedder } from '../vectors/chunk-vectors.js';
import { CorpusVectors } from '../vectors/corpus-vectors.js';
import { learnVectors } from '../vectors/learn-vectors.js';
import { expandQuery, isProse } from '../vectors/query-expansion.js';
import type { StaticModel } from '../vectors/static-model.js';

/** Search modes, the default first. Without vectors, `semantic` and `hybrid` rank as `bm25` does. */
export const SEARCH_MODES = ['hybrid', 'semantic', 'bm25'] as const;
/** How a search ranks: `hybrid` (bm25 and cosine mixed), `semantic` (cosine of vectors) or `bm25` (keywords). */
export type SearchMode = (typeof SEARCH_MODES)[number];

export type { SearchHit } from '../ranking/ranking.js';

/** Options for {@link CodeIndex.build}. */
export interface BuildOptions {
  /** Use the saved index where it still matches the files; default true. */
  saved?: boolean;
  /** Where the saved index is read (default `<root>/.mcpkit/search-index.bin`). */
  indexFile?: string;
  /** A static model (`--model DIR`): chunk vectors for the semantic and hybrid modes. */
  model?: StaticModel;
  /**
   * Without a model: `corpus` (default) learns vectors from the indexed code itself (latent semantic analysis,
   * {@link CorpusVectors}) for the semantic and hybrid modes before the build returns; `background` returns as
   * soon as bm25 is ready and learns them after ({@link CodeIndex.vectorsReady}); `none` indexes for bm25 only.
   */
  vectors?: 'corpus' | 'background' | 'none';
  /** Why a saved index was not (wholly) used, why nothing was indexed. */
  onWarning?: (message: string) => void;
  /** After each file: files done, files in all, chunks so far. */
  onProgress?: (done: number, total: number, chunks: number) => void;
  /**
   * The process's RSS, in MB, past which a build stops reading files and learns no vectors: it searches what it has
   * indexed, with one warning, instead of running out of memory; default 1,400 (`MCPKIT_SEARCH_MEMORY_MB`).
   */
  memoryLimitMb?: number;
  /**
   * Worker threads that read, parse and chunk files (0: all on the calling thread); default one per core, at most
   * 2, for a tree of 2,000 files or more.
   */
  workers?: number;
  /**
   * Write postings to a temporary file in segments while building and assemble them once at the end, instead of
   * merging them in memory as they grow: default for trees of 5,000 files or more; `{ every }` postings a segment.
   */
  spill?: boolean | { every: number };
  /**
   * How files with a grammar are cut: `outline` (default) finds their definitions by line patterns and brace or
   * indentation matching (outline.ts: ~5× cheaper per file than a parse, and as good on bench/search-quality.ts; a
   * file it cannot balance is parsed), `syntax` parses every file with tree-sitter.
   */
  chunking?: 'outline' | 'syntax';
}

/** Trees this large spill their postings while they are built ({@link BuildOptions.spill}). */
const SPILL_FILES = 5000;

/** The memory budget of a build unless told otherwise (a 1.5 GB goal for the Linux kernel's 78k files). */
export const MEMORY_LIMIT_MB = 1400;

/** A build under way: the index (searchable at once for what is indexed so far) and when it is complete. */
export interface IndexBuild {
  index: CodeIndex;
  done: Promise<CodeIndex>;
}

/** What encodes text into the vectors' space: a static model, or vectors learned from this corpus. */
type VectorSource = { model: StaticModel } | { corpus: CorpusVectors };

/** How much more a static model's cosine counts for a prose query in `hybrid` than the corpus vectors'. */
const MODEL_SEMANTIC = 2;

/** Documents from another source than files ({@link CodeIndex.addDocuments}) live under keys that are no path. */
const EXTRA = '\u0000extra:';

/** How many files' lines are kept for showing chunks (an answer shows a handful). */
const LINE_CACHE = 32;

/**
 * The search index of one repository: chunks from the walker and chunker, BM25 over their content (weight 1), their
 * symbol names (3) and their path (2), and a ranking stack on top — definitions of a queried symbol and path words
 * that match the query go up; tests (unless asked for) and `.d.ts` files go down; every further chunk of a file
 * already in the results counts a little less. The index is built file by file and can be searched while it is
 * ({@link CodeIndex.open}); files that change are re-read in place ({@link withFiles}). A chunk's code is not held:
 * it is read from its file when shown.
 */
export class CodeIndex {
  private bm25 = new Bm25Index();
  /** Each document's place; undefined once removed. */
  private places: (ChunkPlace | undefined)[] = [];
  /** Code held in memory: documents added from another source than files. */
  private readonly held = new Map<number, string>();
  private readonly fileDocs = new Map<string, number[]>();
  private readonly stamps = new Map<string, FileStamp>();
  /**
   * Files walked but left out (not text, lines too long, unreadable) as they were then: saved with the index, so a
   * start does not take an unchanged binary for a new file each time.
   */
  private readonly leftOut = new Map<string, FileStamp>();
  private twins: ReadonlySet<string> = new Set();
  private legacy: ReadonlySet<string> = new Set();
  private vectors: DocVectors | undefined;
  private source: VectorSource | undefined;
  private learning: Promise<void> = Promise.resolve();
  /** Whether a model is still encoding the chunks (searches rank as bm25 meanwhile). */
  private encoding = false;
  private updates: Promise<unknown> = Promise.resolve();
  private readonly lines = new Map<string, string[]>();
  private readonly docOf = new WeakMap<Chunk, number>();
  private walked: WalkMode = {};
  /** Files are cut at an outline, not parsed ({@link BuildOptions.chunking}). */
  private outlined = true;
  /** How far the build is: files done, files walked (0 until the walk is done). */
  readonly progress = { done: 0, total: 0 };
  /** Whether the build is done (else a search answers from the files indexed so far). */
  complete = false;
  /** What the build left out or could not parse. */
  report: IndexReport = { notText: 0, longLines: 0, windowed: 0 };
  /** The saved index this one started from, if any. */
  loadedFrom: string | undefined;
  /** Whether files were indexed or dropped since the index was built, loaded or saved. */
  unsaved = false;
  /** Whether the build stopped at its memory budget (the index holds the files read until then). */
  overBudget = false;
  private markUsable: () => void = () => undefined;
  /** Settles once the index can answer whole: a saved index taken, or the build complete. */
  readonly usable = new Promise<void>((settle) => {
    this.markUsable = settle;
  });

  private constructor(readonly root: string) {}

  /** How many files are indexed. */
  get files(): number {
    return this.stamps.size;
  }

  /** How many chunks are indexed. */
  get chunkCount(): number {
    return this.bm25.live;
  }

  /** Every chunk, in the walker's order of their files (each read from its file: for tests and tools, not queries). */
  get chunks(): Chunk[] {
    const paths = [...this.fileDocs.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return paths.flatMap((path) => (this.fileDocs.get(path) ?? []).map((doc) => this.chunkOf(doc)));
  }

  /**
   * Walks, chunks and indexes `root`, resolving once complete. A saved index (`mcpkit index`) is used for every
   * file whose size and mtime still match; only the others are chunked again, with a warning saying how many.
   */
  static build(root: string, options: BuildOptions = {}): Promise<CodeIndex> {
    return CodeIndex.open(root, options).done;
  }

  /** Starts a build and returns the index at once: it answers from what is indexed so far until `done`. */
  static open(root: string, options: BuildOptions = {}): IndexBuild {
    const index = new CodeIndex(root);
    if (options.model) index.source = { model: options.model };
    return { index, done: index.fill(options).then(() => index) };
  }

  private async fill(options: BuildOptions): Promise<void> {
    const { root } = this;
    await checkSearchRoot(root);
    const warn = (message: string) => options.onWarning?.(message);
    // A saved index is taken first: it answers while the tree is walked and checked against it.
    const saved = options.saved === false ? undefined : await loadSavedIndex(root, options.indexFile);
    if (typeof saved === 'string') warn(`${saved}; indexing from scratch`);
    const withVectors = typeof saved === 'object' && this.adopt(saved, options);
    // The walker does not sniff for binaries: the build reads every file anyway and checks them itself.
    let files = await walk(root, undefined, { sniff: false });
    // A package that ships only built code (dist/) is still code to search: index its build output then.
    if (!files.some((file) => languageOf(file.path).grammar)) {
      const built = await walk(root, undefined, { sniff: false, buildDirs: true });
      if (built.some((file) => languageOf(file.path).grammar)) {
        warn(`${root} has no source code outside dist/, build/ or out/; indexing those`);
        files = built;
        this.walked = { buildDirs: true };
      }
    }
    this.outlined = options.chunking !== 'syntax';
    if (files.length === 0) {
      const why = await explainEmpty(root);
      if (why) warn(why);
    }
    this.progress.total = files.length;
    this.twins = buildOutputs(files.map((file) => file.path));
    this.legacy = legacyFiles(files.map((file) => file.path));
    if (typeof saved === 'object') await this.reconcile(files, options);
    else {
      let chunks = 0;
      const spill = options.spill ?? files.length >= SPILL_FILES;
      if (spill) this.bm25.spillTo(typeof spill === 'object' ? spill.every : undefined);
      const limit = options.memoryLimitMb ?? MEMORY_LIMIT_MB;
      this.report = await chunkFiles(
        root,
        files,
        this.twins,
        (file, counted) => {
          if (this.overBudget) return;
          if (counted) this.addCounted(counted);
          else this.leftOut.set(file.path, stampOf(file));
          chunks += counted?.terms.places.length ?? 0;
          const done = ++this.progress.done;
          options.onProgress?.(done, files.length, chunks);
          // Checked now and then (it is a system call): the first file, then every 128.
          if (done % 128 === 1 && process.memoryUsage.rss() > limit * 1024 * 1024) {
            this.overBudget = true;
            warn(
              `stopped indexing ${root} at ${done} of ${count(files.length, 'file')}: the process uses ${Math.round(process.memoryUsage.rss() / 1048576)} MB, over its ${limit} MB budget (MCPKIT_SEARCH_MEMORY_MB); searching those files with bm25 only`,
            );
          }
        },
        this.chunking(options, () => this.overBudget),
      );
    }
    this.bm25.parts();
    // Ranking marks what is indexed (a walked file that turned out binary is not).
    this.twins = buildOutputs(this.stamps.keys());
    this.legacy = legacyFiles(this.stamps.keys());
    this.complete = true;
    this.markUsable();
    const model = this.source !== undefined && 'model' in this.source;
    // A model encodes the chunks after bm25 is ready when asked to (as corpus vectors are learned), and always those
    // of a saved index, which keeps no model vectors (else semantic and hybrid would quietly rank as bm25).
    if (model && (typeof saved === 'object' || options.vectors === 'background')) {
      this.encoding = true;
      this.learning = this.encodeAll();
      if (options.vectors !== 'background') await this.learning;
      return;
    }
    if (withVectors || model || options.vectors === 'none' || this.overBudget) return;
    this.learning = this.learn(warn);
    if (options.vectors !== 'background') await this.learning;
  }

  /** Takes a saved index as this one's; whether its vectors came with it. */
  private adopt(saved: SavedIndex, options: BuildOptions): boolean {
    this.loadedFrom = options.indexFile ?? join(this.root, INDEX_FILE);
    this.bm25 = Bm25Index.fromParts(saved.bm25);
    this.places = saved.chunks;
    saved.chunks.forEach((place, doc) => {
      if (!place || !this.bm25.has(doc)) return;
      const list = this.fileDocs.get(place.path) ?? [];
      list.push(doc);
      this.fileDocs.set(place.path, list);
    });
    for (const [path, stamp] of saved.files) this.stamps.set(path, stamp);
    for (const [path, stamp] of saved.leftOut ?? []) this.leftOut.set(path, stamp);
    this.twins = buildOutputs(this.stamps.keys());
    this.legacy = legacyFiles(this.stamps.keys());
    this.progress.done = this.progress.total = this.stamps.size;
    this.markUsable();
    const withVectors = saved.vectors !== undefined && !this.source && options.vectors !== 'none';
    if (withVectors && saved.vectors) {
      const corpus = CorpusVectors.fromModel(saved.vectors.model);
      this.vectors = DocVectors.fromBytes(corpus.dimensions, saved.vectors.rows);
      this.source = { corpus };
    }
    return withVectors;
  }

  /** Re-reads the files a saved index does not match (new, changed, gone), with a warning saying how many. */
  private async reconcile(files: readonly WalkedFile[], options: BuildOptions): Promise<void> {
    const walked = new Map(files.map((file) => [file.path, file]));
    const gone = [...this.stamps.keys()].filter((path) => !walked.has(path));
    for (const path of this.leftOut.keys()) if (!walked.has(path)) this.leftOut.delete(path);
    const changed = files.filter((file) => {
      const stamp = this.stamps.get(file.path) ?? this.leftOut.get(file.path);
      return !stamp || stamp.size !== file.size || stamp.mtimeMs !== file.mtimeMs;
    });
    this.progress.done = files.length - changed.length;
    for (const path of gone) this.removeFile(path);
    this.report = await chunkFiles(
      this.root,
      changed,
      this.twins,
      (file, counted) => {
        this.removeFile(file.path);
        if (counted) this.addCounted(counted);
        else this.leftOut.set(file.path, stampOf(file));
        options.onProgress?.(++this.progress.done, files.length, this.chunkCount);
      },
      this.chunking(options),
    );
    if (changed.length > 0 || gone.length > 0)
      options.onWarning?.(
        `the saved index of ${this.root} is out of date (${count(changed.length, 'file')} new or changed, ${gone.length} gone); re-indexed those`,
      );
    this.unsaved = changed.length > 0 || gone.length > 0;
  }

  /** How files are chunked: on worker threads unless told otherwise, with their texts when a model encodes them. */
  private chunking(options: BuildOptions, stop?: () => boolean) {
    return {
      ...(options.workers !== undefined ? { workers: options.workers } : {}),
      withTexts: this.source !== undefined && 'model' in this.source && options.vectors !== 'background',
      outline: this.outlined,
      ...(stop ? { stop } : {}),
    };
  }

  /** Learns corpus vectors from the postings; documents added meanwhile are encoded after. */
  private async learn(warn: (message: string) => void): Promise<void> {
    try {
      const parts = this.bm25.parts();
      const learned = parts.lengths.length;
      const { corpus, vectors } = await learnVectors(parts, (term) => this.bm25.idOf(term));
      this.source = { corpus };
      this.vectors = vectors;
      for (let doc = learned; doc < this.bm25.size; doc++) if (this.bm25.has(doc)) this.encodeDoc(doc);
    } catch (error) {
      warn(`cannot learn vectors from ${this.root}: ${(error as Error).message}; bm25 only`);
    }
  }

  /** Encodes every chunk with the model, file by file, after the build returns, letting other work run every 64. */
  private async encodeAll(): Promise<void> {
    let done = 0;
    for (const docs of [...this.fileDocs.values()].map((list) => [...list]))
      for (const doc of docs) {
        if (done++ % 64 === 0) await new Promise((resume) => setImmediate(resume));
        if (this.bm25.has(doc)) this.encodeDoc(doc);
      }
    this.encoding = false;
  }

  /** Saves the index for the next start (default `<root>/.mcpkit/search-index.bin`); returns the file. */
  async save(file?: string): Promise<string> {
    await this.learning;
    const places = this.places.map((place, doc) => (this.bm25.has(doc) ? place : undefined));
    // Documents from another source are not files: they are added again by their source at start.
    for (const doc of this.held.keys()) places[doc] = undefined;
    const corpus = this.source && 'corpus' in this.source ? this.source.corpus : undefined;
    const parts = this.bm25.parts();
    const alive = this.held.size > 0 ? Uint8Array.from(parts.alive) : parts.alive;
    for (const doc of this.held.keys()) alive[doc] = 0;
    this.unsaved = false;
    return saveIndex(
      this.root,
      {
        files: this.stamps,
        leftOut: this.leftOut,
        chunks: places,
        bm25: { ...parts, alive },
        ...(corpus && this.vectors ? { vectors: { model: corpus.model(), rows: this.vectors.bytes() } } : {}),
      },
      file,
    );
  }

  /**
   * Adds documents from another source than the repository's files (a database's schema, say), replacing what the
   * same source added before; they are searched and shown like chunks, their code held in memory. Chunks whose
   * path is a file of the repository are fine: they stay apart from that file's own.
   */
  addDocuments(source: string, chunks: readonly Chunk[]): void {
    const key = `${EXTRA}${source}`;
    for (const doc of this.fileDocs.get(key) ?? []) this.removeDoc(doc);
    const docs = this.addChunks(chunks);
    docs.forEach((doc, i) => {
      this.held.set(doc, (chunks[i] as Chunk).content);
    });
    this.fileDocs.set(key, docs);
  }

  /**
   * These files read again from disk (changed, added, or gone), chunked exactly as a fresh build would chunk them
   * ({@link walkOne}, {@link chunksOf}), plus any file whose standing as build output they change (a source saved
   * beside output already indexed). Updates this index in place and resolves to it. Paths are relative to the
   * root, with `/`.
   */
  withFiles(paths: Iterable<string>): Promise<CodeIndex> {
    const list = [...new Set(paths)];
    const run = this.updates.then(() => this.update(list));
    this.updates = run.catch(() => undefined);
    return run.then(() => this);
  }

  private async update(paths: readonly string[]): Promise<void> {
    const fresh = new Map<string, WalkedFile | undefined>();
    for (const path of paths) fresh.set(path, await walkOne(this.root, path, this.walked));
    const after = new Set(this.stamps.keys());
    for (const [path, file] of fresh)
      if (file) after.add(path);
      else after.delete(path);
    const twins = buildOutputs(after);
    for (const path of after)
      if (!fresh.has(path) && twins.has(path) !== this.twins.has(path))
        fresh.set(path, await walkOne(this.root, path, this.walked));
    const reader = repoFiles(this.root);
    const made = new Map<string, { file: WalkedFile; chunks: Chunk[] } | undefined>();
    for (const [path, file] of fresh) {
      const outcome = file ? await chunksOf(reader, file, twins.has(path), this.outlined) : undefined;
      made.set(path, file && outcome && 'chunks' in outcome ? { file, chunks: outcome.chunks } : undefined);
    }
    // Applied at once, with no await in between: a search sees the index before or after, never half of it.
    this.twins = twins;
    for (const [path, result] of made) {
      this.removeFile(path);
      const file = fresh.get(path);
      if (result) {
        this.fileDocs.set(path, this.addChunks(result.chunks));
        this.stamps.set(path, stampOf(result.file));
        this.unsaved = true;
      } else if (file) this.leftOut.set(path, stampOf(file));
    }
    this.legacy = legacyFiles(this.stamps.keys());
  }

  /** Adds a file counted by {@link chunkFiles}. */
  private addCounted({ file, terms, table }: CountedFile): void {
    this.unsaved = true;
    table.resolve(terms, (term) => this.bm25.intern(term));
    this.fileDocs.set(file.path, this.addTerms(terms));
    this.stamps.set(file.path, stampOf(file));
  }

  /** Adds chunks counted on this thread (a changed file, documents from another source). */
  private addChunks(chunks: readonly Chunk[]): number[] {
    const terms = new TermEncoder(this.source !== undefined && 'model' in this.source).encode(chunks);
    new EncoderTerms().take(terms).resolve(terms, (term) => this.bm25.intern(term));
    return this.addTerms(terms);
  }

  /** Adds counted chunks whose term ids are the index's; returns their documents. */
  private addTerms(counted: FileTerms): number[] {
    const { places, starts, terms, weighted, counts, lengths, texts } = counted;
    return places.map((place, c) => {
      const from = starts[c] as number;
      const to = starts[c + 1] as number;
      const doc = this.bm25.addCounted(terms, weighted, counts, lengths[c] as number, from, to);
      this.places[doc] = place;
      const source = this.source;
      if (source && 'model' in source) {
        // Without its text (a build that encodes after bm25 is ready) the chunk is encoded then.
        if (texts) {
          this.vectors ??= new DocVectors(source.model.dimensions);
          this.vectors.set(doc, source.model.encode(texts[c] ?? ''));
        }
      } else if (source && this.vectors) {
        // The corpus vectors count a chunk's terms in all its fields, as they learned them.
        const tokens: string[] = [];
        for (let p = from; p < to; p++)
          for (let n = counts[p] as number; n > 0; n--) tokens.push(this.bm25.term(terms[p] as number));
        this.vectors.set(doc, source.corpus.encode(tokens));
      }
      return doc;
    });
  }

  /** A document's vector from its chunk as read now (added while vectors were being learned, or saved). */
  private encodeDoc(doc: number): void {
    const chunk = this.chunkOf(doc);
    const source = this.source;
    if (source && 'model' in source) {
      this.vectors ??= new DocVectors(source.model.dimensions);
      // As the chunker hands a chunk's text to a model (file-terms.ts).
      this.vectors.set(doc, source.model.encode(`${chunk.symbols.join(' ')} ${chunk.path} ${chunk.content}`));
      return;
    }
    const tokens = [
      ...tokenize(chunk.symbols.join(' ')),
      ...tokenize(chunk.path),
      ...tokenize(chunk.content),
    ];
    if (source && 'corpus' in source) this.vectors?.set(doc, source.corpus.encode(tokens));
  }

  private removeFile(path: string): void {
    if (this.stamps.has(path)) this.unsaved = true;
    for (const doc of this.fileDocs.get(path) ?? []) this.removeDoc(doc);
    this.fileDocs.delete(path);
    this.stamps.delete(path);
    this.leftOut.delete(path);
    this.lines.delete(path);
  }

  private removeDoc(doc: number): void {
    this.bm25.remove(doc);
    this.places[doc] = undefined;
    this.held.delete(doc);
  }

  /** Whether this index's walk leaves out directories of this name (a watcher need not watch them). */
  skipsDir(name: string): boolean {
    return isSkippedDir(name, this.walked);
  }

  /** Whether semantic and hybrid modes have vectors to use (now: see {@link vectorsReady}). */
  get hasVectors(): boolean {
    return this.vectors !== undefined && !this.encoding;
  }

  /** Settles when vectors learned in the background are there (or failed: then bm25 only). */
  vectorsReady(): Promise<void> {
    return this.learning;
  }

  /**
   * The best `limit` chunks for a query. `semantic` ranks by the cosine of the chunks' vectors (the corpus's own,
   * or a static model's); `hybrid` adds the bm25 and cosine scores, each divided by its best, the corpus cosine at
   * half weight, a model's at full (measured on bench/search-quality.ts; reciprocal rank fusion lost to bm25 there).
   * Without vectors both rank as `bm25`. The ranking stack applies to every mode.
   */
  search(
    query: string,
    limit = 5,
    mode: SearchMode = 'bm25',
    ranking: Partial<RankingWeights> = {},
  ): SearchHit[] {
    const weights = { ...DEFAULT_RANKING, ...ranking };
    const { vectors, source } = this;
    if (mode === 'bm25' || !vectors || !source || this.encoding)
      return this.ranked(this.bm25.scores(query), query, limit, undefined, weights);
    const encoded = 'model' in source ? source.model.encode(query) : source.corpus.encode(tokenize(query));
    // No word of the query has a vector (`Command` in a CLI's code: a word in most chunks is left out of the
    // vocabulary): the words are still in the index, so bm25 answers rather than nothing.
    if (!encoded.some((x) => x !== 0))
      return this.ranked(this.bm25.scores(query), query, limit, undefined, weights);
    const semantic = vectors.cosines(encoded, this.bm25.size);
    if (this.bm25.live < this.bm25.size)
      for (let doc = 0; doc < semantic.length; doc++) if (!this.bm25.has(doc)) semantic[doc] = 0;
    if (mode === 'semantic') return this.ranked(semantic, query, limit, undefined, weights);
    // A sentence in plain English, with a model: bm25 also scores the code words the model puts near it, and the
    // model's cosine counts twice the corpus vectors' (its semantic mode alone is near bm25's). Names stay as they are.
    const english = 'model' in source && isProse(query);
    const lexical = english
      ? this.bm25.scoreTerms(
          expandQuery(source.model, query, encoded, (term) => this.bm25.idOf(term) !== undefined),
        )
      : this.bm25.scores(query);
    const weight = english ? weights.semantic * MODEL_SEMANTIC : weights.semantic;
    return this.ranked(mix(lexical, semantic, weight), query, limit, undefined, weights);
  }

  /** The chunk that holds a line of a file (a line on a boundary belongs to the chunk it ends last). */
  chunkAt(path: string, line: number): Chunk | undefined {
    const key = path.replace(/^\.\//, '');
    const docs = this.fileDocs.get(key) ?? this.addedDocsAt(key);
    const place = (doc: number) => this.places[doc] as ChunkPlace;
    const doc =
      docs.find((d) => place(d).startLine <= line && line < place(d).endLine) ??
      docs.find((d) => place(d).startLine <= line && line <= place(d).endLine);
    return doc === undefined ? undefined : this.chunkOf(doc);
  }

  /** Whether a file is in the index (or a document added under that path, such as a table's). */
  hasFile(path: string): boolean {
    const key = path.replace(/^\.\//, '');
    return this.stamps.has(key) || this.addedDocsAt(key).length > 0;
  }

  /** The live documents added from another source ({@link addDocuments}) whose path is this one. */
  private addedDocsAt(path: string): number[] {
    const found: number[] = [];
    for (const [key, docs] of this.fileDocs)
      if (key.startsWith(EXTRA)) for (const doc of docs) if (this.places[doc]?.path === path) found.push(doc);
    return found;
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
    return this.ranked(raw, chunk.symbols.join(' '), limit, this.docOf.get(chunk), DEFAULT_RANKING);
  }

  /** A document as a chunk; its code is read from its file when first asked for. */
  private chunkOf(doc: number): Chunk {
    const { path, startLine, endLine, language, symbols } = this.places[doc] as ChunkPlace;
    const chunk = { path, startLine, endLine, language, symbols } as Chunk;
    let content: string | undefined = this.held.get(doc);
    Object.defineProperty(chunk, 'content', {
      enumerable: true,
      get: () => {
        content ??= this.linesOf(path)
          .slice(startLine - 1, endLine)
          .join('\n');
        return content;
      },
    });
    this.docOf.set(chunk, doc);
    return chunk;
  }

  /** A file's lines as the index read them (through the same checks), a few files kept. */
  private linesOf(path: string): string[] {
    let lines = this.lines.get(path);
    if (!lines) {
      const bytes = repoFiles(this.root).readSync(`${this.root}/${path}`, { maxBytes: MAX_BYTES });
      lines = bytes ? bytes.toString('utf8').split('\n') : [];
      if (this.lines.size >= LINE_CACHE) this.lines.delete(this.lines.keys().next().value as string);
      this.lines.set(path, lines);
    }
    return lines;
  }

  private ranked(
    raw: Float64Array,
    query: string,
    limit: number,
    exclude: number | undefined,
    weights: Readonly<RankingWeights>,
  ): SearchHit[] {
    return rankChunks(
      raw,
      query,
      limit,
      { chunkAt: (doc) => this.chunkOf(doc), twins: this.twins, legacy: this.legacy, exclude },
      weights,
    );
  }
}

/** How a tree was walked: only its build output is indexed when it has no source code elsewhere. */
type WalkMode = Pick<WalkOptions, 'buildDirs'>;

export type { Embedder };
