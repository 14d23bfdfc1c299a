import { doubled, type FrozenPostings, GrowingInts, PostingStore } from './postings.js';
import { tokenize } from './tokenize.js';

/** Options for {@link Bm25Index}. */
export interface Bm25Options {
  /** Term-frequency saturation; default 1.2. */
  k1?: number;
  /** Length normalisation; default 0.75. */
  b?: number;
  /** Turns text into terms; default {@link tokenize}. */
  tokenize?: (text: string) => string[];
}

/** One document to index: its fields, each with a weight (a name counts more than a long description). */
export interface Bm25Document {
  /** `tokens`, when given, are used as the field's terms instead of tokenizing `text` (a caller that needs them too). */
  fields: readonly { text: string; weight?: number; tokens?: readonly string[] }[];
}

/** A scored hit: the document's position in the array given to the index. */
export interface Bm25Hit {
  doc: number;
  score: number;
}

/** Everything a BM25 index is, as arrays: what a saved index stores and {@link Bm25Index.fromParts} reads back. */
export interface Bm25Parts extends FrozenPostings {
  /** The terms, by term id. */
  terms: string[];
  /** Each document's field-weighted length. */
  lengths: Float32Array;
  /** 1 for a document in the index, 0 for one removed. */
  alive: Uint8Array;
}

/**
 * The tail is merged into the frozen part once it holds this many postings, or a quarter of the frozen part if that
 * is more: merges cost the postings' size each, so growing the bound with the index keeps a build linear.
 */
const TAIL_MIN = 1 << 16;
/** While a build spills its postings to disk ({@link Bm25Index.spillTo}), a tail this large is written out. */
const SPILL_AT = 1 << 22;
/** A query first merges a tail larger than this (scanning it once per query word would cost more). */
const TAIL_SCAN = 1 << 18;

/**
 * Okapi BM25 over weighted fields (BM25F-style: a field's weight multiplies its term counts). Documents can be
 * added at any time (a build adds them file by file, and can be searched while it does) and removed (a file that
 * changed); postings live in typed arrays ({@link PostingStore}). Term statistics count removed documents until
 * the index is built again, as search engines do between merges. IDF has the usual +1 so common terms never score
 * negative.
 *
 * @example
 * const index = new Bm25Index([{ fields: [{ text: 'read_file', weight: 3 }, { text: 'Read a file' }] }]);
 * index.search('open a file', 5); // [{ doc: 0, score: … }]
 */
export class Bm25Index {
  private readonly termIds = new Map<string, number>();
  private readonly termNames: string[] = [];
  private readonly df = new GrowingInts();
  private readonly store = new PostingStore();
  private lengths = new Float32Array(1024);
  private alive = new Uint8Array(1024);
  private docs = 0;
  private liveDocs = 0;
  private liveLength = 0;
  private spillEvery = SPILL_AT;
  private readonly k1: number;
  private readonly b: number;
  private readonly tokenizer: (text: string) => string[];

  constructor(documents: readonly Bm25Document[] = [], options: Bm25Options = {}) {
    this.k1 = options.k1 ?? 1.2;
    this.b = options.b ?? 0.75;
    this.tokenizer = options.tokenize ?? ((text) => tokenize(text));
    for (const document of documents) this.add(document);
  }

  /** An index from its arrays ({@link parts}), without tokenizing anything. */
  static fromParts(parts: Bm25Parts, options: Bm25Options = {}): Bm25Index {
    const index = new Bm25Index([], options);
    parts.terms.forEach((term, id) => {
      index.termIds.set(term, id);
      index.termNames.push(term);
      index.df.push((parts.offsets[id + 1] as number) - (parts.offsets[id] as number));
    });
    const { offsets, docs, tfs, counts } = parts;
    index.docs = parts.lengths.length;
    index.store.load({ offsets, docs, tfs, counts }, index.docs);
    index.lengths = Float32Array.from(parts.lengths);
    index.alive = Uint8Array.from(parts.alive);
    for (let doc = 0; doc < index.docs; doc++)
      if (index.alive[doc]) {
        index.liveDocs++;
        index.liveLength += index.lengths[doc] as number;
      }
    return index;
  }

  /**
   * Writes postings to a temporary file as they come, in segments, until {@link parts} assembles them once: a large
   * build holds its newest postings only, instead of merging all of them again and again. False when no file can
   * be made (they stay in memory).
   */
  spillTo(every = SPILL_AT, dir?: string): boolean {
    this.spillEvery = every;
    return this.store.spillTo(dir);
  }

  /** The index as arrays (the tail merged in first), for a saved index. */
  parts(): Bm25Parts {
    this.store.freeze(this.termNames.length);
    return {
      ...this.store.frozen,
      terms: this.termNames,
      lengths: this.lengths.subarray(0, this.docs),
      alive: this.alive.subarray(0, this.docs),
    };
  }

  /** Adds a document; returns its number (documents are numbered in the order added). */
  add(document: Bm25Document): number {
    // Counted by string first: a document repeats its words, and the index-wide term table is large and slow to
    // look up once per token.
    const local = new Map<string, { weighted: number; count: number }>();
    let length = 0;
    for (const field of document.fields) {
      const weight = field.weight ?? 1;
      for (const term of field.tokens ?? this.tokenizer(field.text)) {
        const seen = local.get(term);
        if (seen) {
          seen.weighted += weight;
          seen.count++;
        } else local.set(term, { weighted: weight, count: 1 });
        length += weight;
      }
    }
    const terms: number[] = [];
    const weighted: number[] = [];
    const counts: number[] = [];
    for (const [term, seen] of local) {
      terms.push(this.intern(term));
      weighted.push(seen.weighted);
      counts.push(seen.count);
    }
    return this.addCounted(terms, weighted, counts, length);
  }

  /**
   * Adds a document whose terms are counted already: term ids ({@link intern}), field-weighted and plain counts
   * (entries `from` to `to`), and its field-weighted length. Returns its number.
   */
  addCounted(
    terms: ArrayLike<number>,
    weighted: ArrayLike<number>,
    counts: ArrayLike<number>,
    length: number,
    from = 0,
    to = terms.length,
  ): number {
    for (let i = from; i < to; i++) {
      const id = terms[i] as number;
      this.df.set(id, this.df.at(id) + 1);
    }
    this.store.append(terms, weighted, counts, from, to);
    if (this.store.spilling) {
      if (this.store.tailSize >= this.spillEvery) this.store.spillTail(this.termNames.length);
    } else if (this.store.tailSize > Math.max(TAIL_MIN, this.store.frozen.docs.length / 4))
      this.store.freeze(this.termNames.length);
    const doc = this.docs++;
    if (doc >= this.lengths.length) {
      this.lengths = doubled(this.lengths);
      this.alive = doubled(this.alive);
    }
    this.lengths[doc] = length;
    this.alive[doc] = 1;
    this.liveDocs++;
    this.liveLength += length;
    return doc;
  }

  /** Takes a document out of every answer (its number is not reused). */
  remove(doc: number): void {
    if (doc >= this.docs || !this.alive[doc]) return;
    this.alive[doc] = 0;
    this.liveDocs--;
    this.liveLength -= this.lengths[doc] as number;
  }

  /** Whether a document is in the index (added, not removed). */
  has(doc: number): boolean {
    return doc < this.docs && this.alive[doc] === 1;
  }

  /** A term's id, given it now if it has none (ids count up in the order terms are first met). */
  intern(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.termNames.length;
      this.termIds.set(term, id);
      this.termNames.push(term);
      this.df.push(0);
    }
    return id;
  }

  /** The term of an id ({@link intern}). */
  term(id: number): string {
    return this.termNames[id] as string;
  }

  /** How many document numbers there are (removed ones included): the length of a score array. */
  get size(): number {
    return this.docs;
  }

  /** How many documents are in the index now. */
  get live(): number {
    return this.liveDocs;
  }

  /** The id of a term, if any document has it. */
  idOf(term: string): number | undefined {
    return this.termIds.get(term);
  }

  /** Inverse document frequency of an (already tokenized) term; 0 for an unknown one. */
  idf(term: string): number {
    const id = this.termIds.get(term);
    const df = id === undefined ? 0 : this.df.at(id);
    if (df === 0) return 0;
    return Math.log(1 + (this.docs - df + 0.5) / (df + 0.5));
  }

  /** Every document's score for a query (0 where no term matched). */
  scores(query: string): Float64Array {
    return this.scoreTerms(new Map([...new Set(this.tokenizer(query))].map((term) => [term, 1])));
  }

  /** Every document's score for already tokenized terms, each with a weight (1 for a query's own words). */
  scoreTerms(terms: ReadonlyMap<string, number>): Float64Array {
    if (this.store.tailSize > TAIL_SCAN)
      if (this.store.spilling) this.store.spillTail(this.termNames.length);
      else this.store.freeze(this.termNames.length);
    const scores = new Float64Array(this.docs);
    const { k1, b, lengths, alive } = this;
    const averageLength = this.liveDocs > 0 ? this.liveLength / this.liveDocs || 1 : 1;
    const { offsets, docs, tfs } = this.store.frozen;
    const frozenTerms = offsets.length - 1;
    for (const [term, weight] of terms) {
      const id = this.termIds.get(term);
      if (id === undefined) continue;
      const idf = this.idf(term) * weight;
      const add = (doc: number, tf: number) => {
        const norm = k1 * (1 - b + (b * (lengths[doc] as number)) / averageLength);
        scores[doc] = (scores[doc] as number) + (idf * (tf * (k1 + 1))) / (tf + norm);
      };
      if (id < frozenTerms)
        for (let p = offsets[id] as number, end = offsets[id + 1] as number; p < end; p++)
          add(docs[p] as number, tfs[p] as number);
      if (this.store.unfrozen) this.store.scanTail(id, add);
    }
    if (this.liveDocs < this.docs) for (let doc = 0; doc < this.docs; doc++) if (!alive[doc]) scores[doc] = 0;
    return scores;
  }

  /** The best `limit` documents with a score above zero, best first (ties: earlier document first). */
  search(query: string, limit = 10): Bm25Hit[] {
    return topK(this.scores(query), limit);
  }
}

/** The `limit` highest positive scores, best first; ties keep the lower index first. */
export function topK(scores: Float64Array, limit: number): Bm25Hit[] {
  const hits: Bm25Hit[] = [];
  for (let doc = 0; doc < scores.length; doc++) {
    const score = scores[doc] as number;
    if (score <= 0) continue;
    if (hits.length === limit && score <= (hits[hits.length - 1] as Bm25Hit).score) continue;
    let at = hits.length;
    while (at > 0 && (hits[at - 1] as Bm25Hit).score < score) at--;
    hits.splice(at, 0, { doc, score });
    if (hits.length > limit) hits.pop();
  }
  return hits;
}
