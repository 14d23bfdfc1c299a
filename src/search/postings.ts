// The term postings of a search index, held in typed arrays: millions of postings in a large repository cost bytes
// each, not an object each. Documents are appended (a build, a file saved while the index is live) and removed
// (marked dead, left in place until the whole index is written again), and the arrays are what the saved index
// holds, so a start reads them instead of tokenizing every chunk again.

/** A growable Int32Array: doubling, so appending a posting costs amortised O(1) and no object. */
export class GrowingInts {
  private data: Int32Array;
  length = 0;

  constructor(capacity = 1024) {
    this.data = new Int32Array(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }

  at(i: number): number {
    return this.data[i] as number;
  }

  set(i: number, value: number): void {
    this.data[i] = value;
  }

  /** Grows to at least `length` entries, the new ones 0. */
  fill(length: number): void {
    while (this.length < length) this.push(0);
  }

  /** The values as a typed array of exactly `length` entries (a copy when the buffer is larger). */
  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }

  clear(): void {
    this.length = 0;
    if (this.data.length > 1 << 16) this.data = new Int32Array(1024);
  }
}

/** The postings of every term, frozen in term-major compressed form: what a query reads and what is saved. */
export interface FrozenPostings {
  /** Per term id, where its postings start in `docs` (length: terms + 1). */
  offsets: Int32Array;
  /** Document numbers, ascending within each term. */
  docs: Int32Array;
  /** Field-weighted term frequency (what BM25F scores). */
  tfs: Uint16Array;
  /** Plain term count, every field weighing 1 (what the corpus vectors learn from). */
  counts: Uint16Array;
}

const cap = (n: number) => (n > 65535 ? 65535 : n);

/**
 * Postings: a frozen term-major part for documents below {@link frozenDocs} and an appendable document-major tail
 * for those after it. A query reads the frozen part by term and scans the tail; {@link freeze} merges the tail in
 * (linear in the postings), done by the owner when the tail grows large.
 */
export class PostingStore {
  frozen: FrozenPostings = {
    offsets: new Int32Array(1),
    docs: new Int32Array(0),
    tfs: new Uint16Array(0),
    counts: new Uint16Array(0),
  };
  /** Documents below this are in the frozen part. */
  frozenDocs = 0;
  /** Tail, document-major: doc i's postings are tailTerms[tailStart[i - frozenDocs] .. tailStart[i - frozenDocs + 1]). */
  private readonly tailStart = new GrowingInts();
  private readonly tailTerms = new GrowingInts();
  private readonly tailTfs = new GrowingInts();
  private readonly tailCounts = new GrowingInts();

  constructor() {
    this.tailStart.push(0);
  }

  /** Postings waiting in the tail. */
  get tailSize(): number {
    return this.tailTerms.length;
  }

  /** Appends one document's postings (term id, weighted tf, plain count; entries `from` to `to`), in any term order. */
  append(
    terms: ArrayLike<number>,
    tfs: ArrayLike<number>,
    counts: ArrayLike<number>,
    from = 0,
    to = terms.length,
  ): void {
    for (let i = from; i < to; i++) {
      this.tailTerms.push(terms[i] as number);
      this.tailTfs.push(cap(tfs[i] as number));
      this.tailCounts.push(cap(counts[i] as number));
    }
    this.tailStart.push(this.tailTerms.length);
  }

  /** Calls `visit(doc, tf, count)` for every posting of a term in the tail. */
  scanTail(term: number, visit: (doc: number, tf: number, count: number) => void): void {
    const docs = this.tailStart.length - 1;
    for (let d = 0; d < docs; d++)
      for (let p = this.tailStart.at(d); p < this.tailStart.at(d + 1); p++)
        if (this.tailTerms.at(p) === term)
          visit(this.frozenDocs + d, this.tailTfs.at(p), this.tailCounts.at(p));
  }

  /** Merges the tail into the frozen part; `terms` is how many term ids exist now. */
  freeze(terms: number): void {
    const tailDocs = this.tailStart.length - 1;
    if (tailDocs === 0 && this.frozen.offsets.length === terms + 1) return;
    const old = this.frozen;
    const oldTerms = old.offsets.length - 1;
    const sizes = new Int32Array(terms + 1);
    for (let t = 0; t < oldTerms; t++)
      sizes[t + 1] = (old.offsets[t + 1] as number) - (old.offsets[t] as number);
    const tailTerms = this.tailTerms.view();
    for (const t of tailTerms) sizes[t + 1] = (sizes[t + 1] as number) + 1;
    const offsets = new Int32Array(terms + 1);
    for (let t = 0; t < terms; t++) offsets[t + 1] = (offsets[t] as number) + (sizes[t + 1] as number);
    const total = offsets[terms] as number;
    const docs = new Int32Array(total);
    const tfs = new Uint16Array(total);
    const counts = new Uint16Array(total);
    // Old postings first (their documents are lower), then the tail in document order: each list stays ascending.
    const fill = Int32Array.from(offsets.subarray(0, terms));
    for (let t = 0; t < oldTerms; t++) {
      const from = old.offsets[t] as number;
      const to = old.offsets[t + 1] as number;
      const at = fill[t] as number;
      docs.set(old.docs.subarray(from, to), at);
      tfs.set(old.tfs.subarray(from, to), at);
      counts.set(old.counts.subarray(from, to), at);
      fill[t] = at + (to - from);
    }
    for (let d = 0; d < tailDocs; d++)
      for (let p = this.tailStart.at(d); p < this.tailStart.at(d + 1); p++) {
        const t = tailTerms[p] as number;
        const at = fill[t] as number;
        docs[at] = this.frozenDocs + d;
        tfs[at] = this.tailTfs.at(p);
        counts[at] = this.tailCounts.at(p);
        fill[t] = at + 1;
      }
    this.frozen = { offsets, docs, tfs, counts };
    this.frozenDocs += tailDocs;
    this.tailStart.clear();
    this.tailStart.push(0);
    this.tailTerms.clear();
    this.tailTfs.clear();
    this.tailCounts.clear();
  }
}
