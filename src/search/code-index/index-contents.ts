// What an index holds: its documents (the chunks of each file, and documents added from another source), their
// postings, their vectors, and the files' stamps; how a file's chunks go in and come out, and how a document is
// shown. CodeIndex (code-index.ts) builds, updates, saves and queries over one of these.
import type { Chunk, ChunkPlace } from '../chunks/chunker.js';
import { stampOf } from '../chunks/file-chunks.js';
import { repoFiles } from '../files/repo-file.js';
import { type FileStamp, MAX_BYTES, type WalkedFile } from '../files/walk.js';
import { Bm25Index } from '../lexical/bm25.js';
import type { CountedFile } from '../lexical/chunk-pool.js';
import { EncoderTerms, type FileTerms, TermEncoder } from '../lexical/file-terms.js';
import { tokenize } from '../lexical/tokenize.js';
import type { SavedIndex } from '../stores/saved-index.js';
import { DocVectors } from '../vectors/chunk-vectors.js';
import { CorpusVectors } from '../vectors/corpus-vectors.js';
import { learnVectors } from '../vectors/learn-vectors.js';
import type { StaticModel } from '../vectors/static-model.js';

/** What encodes text into the vectors' space: a static model, or vectors learned from this corpus. */
export type VectorSource = { model: StaticModel } | { corpus: CorpusVectors };

/** Documents from another source than files ({@link IndexContents.addDocuments}) live under keys that are no path. */
const EXTRA = '\u0000extra:';

/** How many files' lines are kept for showing chunks (an answer shows a handful). */
const LINE_CACHE = 32;

/** The documents of one repository's index. A chunk's code is not held: it is read from its file when shown. */
export class IndexContents {
  bm25 = new Bm25Index();
  /** Each document's place; undefined once removed. */
  places: (ChunkPlace | undefined)[] = [];
  /** Code held in memory: documents added from another source than files. */
  readonly held = new Map<number, string>();
  readonly fileDocs = new Map<string, number[]>();
  readonly stamps = new Map<string, FileStamp>();
  /**
   * Files walked but left out (not text, lines too long, unreadable) as they were then: saved with the index, so a
   * start does not take an unchanged binary for a new file each time.
   */
  readonly leftOut = new Map<string, FileStamp>();
  vectors: DocVectors | undefined;
  source: VectorSource | undefined;
  /** Whether files were indexed or dropped since the index was built, loaded or saved. */
  unsaved = false;
  private readonly lines = new Map<string, string[]>();
  private readonly docOf = new WeakMap<Chunk, number>();

  constructor(readonly root: string) {}

  /** Whether chunks are encoded by a static model (else by corpus vectors, once learned). */
  get byModel(): boolean {
    return this.source !== undefined && 'model' in this.source;
  }

  /** Takes a saved index's documents and stamps as these (its vectors: {@link adoptVectors}). */
  adopt(saved: SavedIndex): void {
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
  }

  /** Takes a saved index's corpus vectors as these. */
  adoptVectors(saved: SavedIndex): void {
    if (!saved.vectors) return;
    const corpus = CorpusVectors.fromModel(saved.vectors.model);
    this.vectors = DocVectors.fromBytes(corpus.dimensions, saved.vectors.rows);
    this.source = { corpus };
  }

  /** What a save writes: the files' documents (not those from another source, added again at start). */
  toSaved(): SavedIndex {
    const places = this.places.map((place, doc) => (this.bm25.has(doc) ? place : undefined));
    for (const doc of this.held.keys()) places[doc] = undefined;
    const corpus = this.source && 'corpus' in this.source ? this.source.corpus : undefined;
    const parts = this.bm25.parts();
    const alive = this.held.size > 0 ? Uint8Array.from(parts.alive) : parts.alive;
    for (const doc of this.held.keys()) alive[doc] = 0;
    return {
      files: this.stamps,
      leftOut: this.leftOut,
      chunks: places,
      bm25: { ...parts, alive },
      ...(corpus && this.vectors ? { vectors: { model: corpus.model(), rows: this.vectors.bytes() } } : {}),
    };
  }

  /** Learns corpus vectors from the postings; documents added meanwhile are encoded after. */
  async learn(warn: (message: string) => void): Promise<void> {
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

  /** Encodes every chunk with the model, file by file, letting other work run every 64. */
  async encodeAll(): Promise<void> {
    let done = 0;
    for (const docs of [...this.fileDocs.values()].map((list) => [...list]))
      for (const doc of docs) {
        if (done++ % 64 === 0) await new Promise((resume) => setImmediate(resume));
        if (this.bm25.has(doc)) this.encodeDoc(doc);
      }
  }

  /** Which walked files a saved index does not match (new or changed), and which of its files are gone. */
  stale(files: readonly WalkedFile[]): { changed: WalkedFile[]; gone: string[] } {
    const walked = new Map(files.map((file) => [file.path, file]));
    const gone = [...this.stamps.keys()].filter((path) => !walked.has(path));
    for (const path of this.leftOut.keys()) if (!walked.has(path)) this.leftOut.delete(path);
    const changed = files.filter((file) => {
      const stamp = this.stamps.get(file.path) ?? this.leftOut.get(file.path);
      return !stamp || stamp.size !== file.size || stamp.mtimeMs !== file.mtimeMs;
    });
    return { changed, gone };
  }

  /** A file as counted by `chunkFiles` in place of what the index held of it (undefined: left out). */
  take(file: WalkedFile, counted: CountedFile | undefined): void {
    this.removeFile(file.path);
    if (!counted) {
      this.leftOut.set(file.path, stampOf(file));
      return;
    }
    this.unsaved = true;
    counted.table.resolve(counted.terms, (term) => this.bm25.intern(term));
    this.fileDocs.set(file.path, this.addTerms(counted.terms));
    this.stamps.set(file.path, stampOf(file));
  }

  /** A file's documents replaced by these chunks, chunked on this thread (no file: gone; no chunks: left out). */
  replaceFile(path: string, file: WalkedFile | undefined, chunks: readonly Chunk[] | undefined): void {
    this.removeFile(path);
    if (!file) return;
    if (!chunks) {
      this.leftOut.set(path, stampOf(file));
      return;
    }
    this.fileDocs.set(path, this.addChunks(chunks));
    this.stamps.set(path, stampOf(file));
    this.unsaved = true;
  }

  /** Adds chunks counted on this thread (a changed file, documents from another source). */
  addChunks(chunks: readonly Chunk[]): number[] {
    const terms = new TermEncoder(this.byModel).encode(chunks);
    new EncoderTerms().take(terms).resolve(terms, (term) => this.bm25.intern(term));
    return this.addTerms(terms);
  }

  /**
   * Adds documents from another source than the repository's files, replacing what the same source added before;
   * their code is held in memory.
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
  encodeDoc(doc: number): void {
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

  removeFile(path: string): void {
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

  /** The document a chunk handed out by {@link chunkOf} came from. */
  docOfChunk(chunk: Chunk): number | undefined {
    return this.docOf.get(chunk);
  }

  /** A document as a chunk; its code is read from its file when first asked for. */
  chunkOf(doc: number): Chunk {
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
}
