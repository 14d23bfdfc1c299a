import { join } from 'node:path';
import { count } from '../../internal/plural.js';
import type { Chunk } from '../chunks/chunker.js';
import { chunksOf, type IndexReport } from '../chunks/file-chunks.js';
import { languageOf } from '../chunks/languages.js';
import { repoFiles } from '../files/repo-file.js';
import { checkSearchRoot } from '../files/search-root.js';
import {
  explainEmpty,
  isSkippedDir,
  type WalkedFile,
  type WalkOptions,
  walk,
  walkOne,
} from '../files/walk.js';
import { chunkFiles } from '../lexical/chunk-pool.js';
import { tokenize } from '../lexical/tokenize.js';
import {
  buildOutputs,
  DEFAULT_RANKING,
  legacyFiles,
  type RankingWeights,
  rankChunks,
  type SearchHit,
} from '../ranking/ranking.js';
import { relatedTerms, type SearchMode, scoresFor } from '../ranking/search-modes.js';
import { INDEX_FILE, loadSavedIndex, type SavedIndex, saveIndex } from '../stores/saved-index.js';
import type { Embedder } from '../vectors/chunk-vectors.js';
import { expandQuery, isProse } from '../vectors/query-expansion.js';
import { translatedTerms } from '../vectors/translation.js';
import { type BuildOptions, MEMORY_LIMIT_MB, SPILL_FILES } from './build-options.js';
import { IndexContents } from './index-contents.js';

export type { SearchHit } from '../ranking/ranking.js';
export { SEARCH_MODES, type SearchMode } from '../ranking/search-modes.js';
export { type BuildOptions, MEMORY_LIMIT_MB } from './build-options.js';

/** A build under way: the index (searchable at once for what is indexed so far) and when it is complete. */
export interface IndexBuild {
  index: CodeIndex;
  done: Promise<CodeIndex>;
}

/** How much more a static model's cosine counts for a prose query in `hybrid` than the corpus vectors'. */
const MODEL_SEMANTIC = 2;

/**
 * The search index of one repository: chunks from the walker and chunker, BM25 over their content (weight 1), their
 * symbol names (3) and their path (2), and a ranking stack on top — definitions of a queried symbol and path words
 * that match the query go up; tests (unless asked for) and `.d.ts` files go down; every further chunk of a file
 * already in the results counts a little less. The index is built file by file and can be searched while it is
 * ({@link CodeIndex.open}); files that change are re-read in place ({@link withFiles}). A chunk's code is not held:
 * it is read from its file when shown.
 */
export class CodeIndex {
  /** The documents, their postings and vectors, the files' stamps. */
  private readonly docs: IndexContents;
  private twins: ReadonlySet<string> = new Set();
  private legacy: ReadonlySet<string> = new Set();
  private learning: Promise<void> = Promise.resolve();
  /** Whether a model is still encoding the chunks (searches rank as bm25 meanwhile). */
  private encoding = false;
  private updates: Promise<unknown> = Promise.resolve();
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
  /** Whether the build stopped at its memory budget (the index holds the files read until then). */
  overBudget = false;
  private markUsable: () => void = () => undefined;
  /** Settles once the index can answer whole: a saved index taken, or the build complete. */
  readonly usable = new Promise<void>((settle) => {
    this.markUsable = settle;
  });

  private constructor(readonly root: string) {
    this.docs = new IndexContents(root);
  }

  /** Whether files were indexed or dropped since the index was built, loaded or saved. */
  get unsaved(): boolean {
    return this.docs.unsaved;
  }

  set unsaved(unsaved: boolean) {
    this.docs.unsaved = unsaved;
  }

  /** How many files are indexed. */
  get files(): number {
    return this.docs.stamps.size;
  }

  /** How many chunks are indexed. */
  get chunkCount(): number {
    return this.docs.bm25.live;
  }

  /** Every chunk, in the walker's order of their files (each read from its file: for tests and tools, not queries). */
  get chunks(): Chunk[] {
    const paths = [...this.docs.fileDocs.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return paths.flatMap((path) => (this.docs.fileDocs.get(path) ?? []).map((doc) => this.docs.chunkOf(doc)));
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
    if (options.model) index.docs.source = { model: options.model };
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
      if (spill) this.docs.bm25.spillTo(typeof spill === 'object' ? spill.every : undefined);
      const limit = options.memoryLimitMb ?? MEMORY_LIMIT_MB;
      this.report = await chunkFiles(
        root,
        files,
        this.twins,
        (file, counted) => {
          if (this.overBudget) return;
          this.docs.take(file, counted);
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
    this.docs.bm25.parts();
    // Ranking marks what is indexed (a walked file that turned out binary is not).
    this.twins = buildOutputs(this.docs.stamps.keys());
    this.legacy = legacyFiles(this.docs.stamps.keys());
    this.complete = true;
    this.markUsable();
    const model = this.docs.source !== undefined && 'model' in this.docs.source;
    // A model encodes the chunks after bm25 is ready when asked to (as corpus vectors are learned), and always those
    // of a saved index, which keeps no model vectors (else semantic and hybrid would quietly rank as bm25).
    if (model && (typeof saved === 'object' || options.vectors === 'background')) {
      this.encoding = true;
      this.learning = this.docs.encodeAll().finally(() => {
        this.encoding = false;
      });
      if (options.vectors !== 'background') await this.learning;
      return;
    }
    if (withVectors || model || options.vectors === 'none' || this.overBudget) return;
    this.learning = this.docs.learn(warn);
    if (options.vectors !== 'background') await this.learning;
  }

  /** Takes a saved index as this one's; whether its vectors came with it. */
  private adopt(saved: SavedIndex, options: BuildOptions): boolean {
    this.loadedFrom = options.indexFile ?? join(this.root, INDEX_FILE);
    this.docs.adopt(saved);
    this.twins = buildOutputs(this.docs.stamps.keys());
    this.legacy = legacyFiles(this.docs.stamps.keys());
    this.progress.done = this.progress.total = this.docs.stamps.size;
    this.markUsable();
    const withVectors = saved.vectors !== undefined && !this.docs.source && options.vectors !== 'none';
    if (withVectors) this.docs.adoptVectors(saved);
    return withVectors;
  }

  /** Re-reads the files a saved index does not match (new, changed, gone), with a warning saying how many. */
  private async reconcile(files: readonly WalkedFile[], options: BuildOptions): Promise<void> {
    const { changed, gone } = this.docs.stale(files);
    this.progress.done = files.length - changed.length;
    for (const path of gone) this.docs.removeFile(path);
    this.report = await chunkFiles(
      this.root,
      changed,
      this.twins,
      (file, counted) => {
        this.docs.take(file, counted);
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
      withTexts:
        this.docs.source !== undefined && 'model' in this.docs.source && options.vectors !== 'background',
      outline: this.outlined,
      ...(stop ? { stop } : {}),
    };
  }

  /** Saves the index for the next start (default `<root>/.mcpkit/search-index.bin`); returns the file. */
  async save(file?: string): Promise<string> {
    await this.learning;
    this.unsaved = false;
    return saveIndex(this.root, this.docs.toSaved(), file);
  }

  /**
   * Adds documents from another source than the repository's files (a database's schema, say), replacing what the
   * same source added before; they are searched and shown like chunks, their code held in memory. Chunks whose
   * path is a file of the repository are fine: they stay apart from that file's own.
   */
  addDocuments(source: string, chunks: readonly Chunk[]): void {
    this.docs.addDocuments(source, chunks);
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
    const after = new Set(this.docs.stamps.keys());
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
    for (const [path, result] of made) this.docs.replaceFile(path, fresh.get(path), result?.chunks);
    this.legacy = legacyFiles(this.docs.stamps.keys());
  }

  /** Whether this index's walk leaves out directories of this name (a watcher need not watch them). */
  skipsDir(name: string): boolean {
    return isSkippedDir(name, this.walked);
  }

  /** Whether semantic and hybrid modes have vectors to use (now: see {@link vectorsReady}). */
  get hasVectors(): boolean {
    return this.docs.vectors !== undefined && !this.encoding;
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
    const { bm25, vectors, source } = this.docs;
    // A sentence in plain English, with a model: bm25 also scores the code words the model puts near it, and the
    // model's cosine counts twice the corpus vectors' (its semantic mode alone is near bm25's). Names stay as they are.
    const english = source !== undefined && 'model' in source && isProse(query);
    let encoded: Float32Array | undefined;
    const raw = scoresFor(mode, {
      semantic: () => {
        if (!vectors || !source || this.encoding) return undefined;
        const vector = 'model' in source ? source.model.encode(query) : source.corpus.encode(tokenize(query));
        // No word of the query has a vector (`Command` in a CLI's code: a word in most chunks is left out of the
        // vocabulary): the words are still in the index, so bm25 answers rather than nothing.
        if (!vector.some((x) => x !== 0)) return undefined;
        encoded = vector;
        const cosines = vectors.cosines(vector, bm25.size);
        if (bm25.live < bm25.size)
          for (let doc = 0; doc < cosines.length; doc++) if (!bm25.has(doc)) cosines[doc] = 0;
        return cosines;
      },
      lexical: () => {
        const indexed = (term: string) => bm25.idOf(term) !== undefined;
        const terms =
          english && encoded && source && 'model' in source && mode === 'hybrid'
            ? expandQuery(source.model, query, encoded, indexed)
            : undefined;
        const expanded = translatedTerms(query, weights, indexed, terms) ?? terms;
        return expanded ? bm25.scoreTerms(expanded) : bm25.scores(query);
      },
      weight:
        weights.semantic * (isProse(query) ? weights.proseSemantic : 1) * (english ? MODEL_SEMANTIC : 1),
    });
    return this.ranked(raw, query, limit, undefined, weights);
  }

  /** The chunk that holds a line of a file (a line on a boundary belongs to the chunk it ends last). */
  chunkAt(path: string, line: number): Chunk | undefined {
    return this.docs.chunkAt(path, line);
  }

  /** Whether a file is in the index (or a document added under that path, such as a table's). */
  hasFile(path: string): boolean {
    return this.docs.hasFile(path);
  }

  /** Chunks like the one given: its symbols and most distinctive words as the query, itself left out. */
  findRelated(chunk: Chunk, limit = 5): SearchHit[] {
    const { bm25 } = this.docs;
    const raw = bm25.scoreTerms(relatedTerms(chunk, (term) => bm25.idf(term)));
    return this.ranked(raw, chunk.symbols.join(' '), limit, this.docs.docOfChunk(chunk), DEFAULT_RANKING);
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
      { chunkAt: (doc) => this.docs.chunkOf(doc), twins: this.twins, legacy: this.legacy, exclude },
      weights,
    );
  }
}

/** How a tree was walked: only its build output is indexed when it has no source code elsewhere. */
type WalkMode = Pick<WalkOptions, 'buildDirs'>;

export type { Embedder };
