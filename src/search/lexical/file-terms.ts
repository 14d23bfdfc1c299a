// A file's chunks as the index takes them: where each chunk is, and its terms counted per field, in typed arrays.
// This is the one place a chunk's text becomes postings, on a worker thread (chunk-worker.ts) or on the main one:
// the index maps the terms to its own ids in the walker's order, so both number terms and documents alike.
import type { Chunk, ChunkPlace } from '../chunks/chunker.js';
import { tokenize, tokensOfWord } from './tokenize.js';
import { WordTable } from './word-table.js';

/** BM25F field weights: content, defined names, path (measured on bench/search-quality.ts). */
const CONTENT = 1;
const SYMBOLS = 3;
const PATH = 2;

/**
 * The chunks of one file, counted: `terms[starts[c] .. starts[c + 1])` are chunk c's distinct terms (ids of the
 * encoder that made it, in the order a chunk's fields first name them: content, names, path), with their
 * field-weighted and plain counts.
 */
export interface FileTerms {
  places: ChunkPlace[];
  /** Whether the encoder's ids start again at 0 with this batch (its table was full). */
  fresh: boolean;
  /** Terms this encoder had not given an id before, in id order (ids continue from the last batch's). */
  newTerms: string[];
  starts: Int32Array;
  terms: Int32Array;
  weighted: Int32Array;
  counts: Int32Array;
  /** Each chunk's field-weighted length. */
  lengths: Float32Array;
  /** Each chunk's text as a static model encodes it (only when asked: the corpus vectors need none). */
  texts?: string[];
}

/**
 * Terms an encoder numbers before it starts again: a worker's table would otherwise grow to every term of the
 * tree (millions in the Linux kernel), a copy of the index's own.
 */
const TABLE_LIMIT = 1 << 18;

/** Turns chunks into {@link FileTerms}, numbering terms as it first meets them (one encoder per thread). */
export class TermEncoder {
  private readonly ids = new Map<string, number>();
  /** Each word's term ids (its tokens'): a word met again costs one lookup, not a string and one per token. */
  private readonly words = new WordTable((word) =>
    Int32Array.from(tokensOfWord(word), (token) => this.idOf(token)),
  );
  private newTerms: string[] = [];
  /** Per term id: weighted count in the chunk being counted, and plain count. */
  private weightedNow = new Int32Array(1024);
  private countsNow = new Int32Array(1024);

  constructor(
    private readonly withTexts = false,
    private readonly tableLimit = TABLE_LIMIT,
  ) {}

  /** Counts the terms of a file's chunks (all of one path, or documents added from another source). */
  encode(chunks: readonly Chunk[]): FileTerms {
    const fresh = this.ids.size > this.tableLimit;
    if (fresh) {
      this.ids.clear();
      this.words.clear();
    }
    const newTerms: string[] = [];
    this.newTerms = newTerms;
    const starts = new Int32Array(chunks.length + 1);
    const terms: number[] = [];
    const weighted: number[] = [];
    const counts: number[] = [];
    const lengths = new Float32Array(chunks.length);
    const places: ChunkPlace[] = [];
    const texts: string[] | undefined = this.withTexts ? [] : undefined;
    let pathOf: string | undefined;
    let pathTokens: string[] = [];
    chunks.forEach((chunk, c) => {
      if (chunk.path !== pathOf) {
        pathOf = chunk.path;
        pathTokens = tokenize(chunk.path);
      }
      const first = terms.length;
      let length = 0;
      const count = (id: number, weight: number) => {
        if (this.countsNow[id] === 0) terms.push(id);
        this.weightedNow[id] = (this.weightedNow[id] as number) + weight;
        this.countsNow[id] = (this.countsNow[id] as number) + 1;
        length += weight;
      };
      const field = (text: string, weight: number) =>
        this.words.scan(text, (ids) => {
          for (let i = 0; i < ids.length; i++) count(ids[i] as number, weight);
        });
      field(chunk.content, CONTENT);
      field(chunk.symbols.join(' '), SYMBOLS);
      for (const token of pathTokens) count(this.idOf(token), PATH);
      for (let p = first; p < terms.length; p++) {
        const id = terms[p] as number;
        weighted.push(this.weightedNow[id] as number);
        counts.push(this.countsNow[id] as number);
        this.weightedNow[id] = 0;
        this.countsNow[id] = 0;
      }
      starts[c + 1] = terms.length;
      lengths[c] = length;
      const { path, startLine, endLine, language, symbols } = chunk;
      places.push({ path, startLine, endLine, language, symbols });
      texts?.push(`${symbols.join(' ')} ${path} ${chunk.content}`);
    });
    return {
      places,
      fresh,
      newTerms,
      starts,
      terms: Int32Array.from(terms),
      weighted: Int32Array.from(weighted),
      counts: Int32Array.from(counts),
      lengths,
      ...(texts ? { texts } : {}),
    };
  }

  /** A term's id in this encoder, given it when it has none (and listed as new in the batch being counted). */
  private idOf(token: string): number {
    let id = this.ids.get(token);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(token, id);
      this.newTerms.push(token);
      this.grow(id);
    }
    return id;
  }

  private grow(id: number): void {
    if (id < this.countsNow.length) return;
    const size = this.countsNow.length * 2;
    const weighted = new Int32Array(size);
    weighted.set(this.weightedNow);
    this.weightedNow = weighted;
    const counts = new Int32Array(size);
    counts.set(this.countsNow);
    this.countsNow = counts;
  }
}

/** The typed arrays of a {@link FileTerms}, to hand to another thread without a copy. */
export const transferables = (terms: FileTerms): ArrayBuffer[] =>
  [terms.starts, terms.terms, terms.weighted, terms.counts, terms.lengths].map(
    (array) => array.buffer as ArrayBuffer,
  );

/**
 * The ids one encoder gave its terms, as the index's own ids: taken in the order batches arrive (their new terms
 * extend the table; a fresh batch starts a new one), and resolved when a batch is added to the index, in the
 * walker's order, so the index numbers terms as it first meets them whichever thread counted them.
 */
export class EncoderTerms {
  private names: string[] = [];
  private ids = new Int32Array(1024).fill(-1);

  /** Takes a batch as it arrives; returns what resolves its ids later. */
  take(batch: FileTerms): EncoderTerms {
    const table = batch.fresh ? new EncoderTerms() : this;
    for (const name of batch.newTerms) table.names.push(name);
    if (table.names.length > table.ids.length) {
      const ids = new Int32Array(Math.max(table.names.length, table.ids.length * 2)).fill(-1);
      ids.set(table.ids);
      table.ids = ids;
    }
    return table;
  }

  /** A batch's term ids as the index's ({@link intern} gives a term one when it has none), in place. */
  resolve(batch: FileTerms, intern: (term: string) => number): void {
    const { terms } = batch;
    for (let p = 0; p < terms.length; p++) {
      const local = terms[p] as number;
      let id = this.ids[local] as number;
      if (id < 0) {
        id = intern(this.names[local] as string);
        this.ids[local] = id;
      }
      terms[p] = id;
    }
  }
}
