// The term postings of a search index, held in typed arrays: millions of postings in a large repository cost bytes
// each, not an object each. Documents are appended (a build, a file saved while the index is live) and removed
// (marked dead, left in place until the whole index is written again), and the arrays are what the saved index
// holds, so a start reads them instead of tokenizing every chunk again.

import { type SegmentPostings, SpilledPostings } from './posting-spill.js';

type GrowableArray = Int32Array | Uint16Array | Uint8Array | Float32Array;

/** A copy of `array` at twice its length, the new half 0: how every growing typed array of the index grows. */
export function doubled<A extends GrowableArray>(array: A): A {
  const next = new (array.constructor as new (length: number) => A)(array.length * 2);
  next.set(array);
  return next;
}

/** A growable Int32Array: doubling, so appending a posting costs amortised O(1) and no object. */
export class GrowingInts {
  private data: Int32Array;
  length = 0;

  constructor(capacity = 1024) {
    this.data = new Int32Array(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) this.data = doubled(this.data);
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

/** A growable Uint16Array (term counts, capped at 65,535): half the bytes of {@link GrowingInts}. */
class GrowingShorts {
  private data = new Uint16Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) this.data = doubled(this.data);
    this.data[this.length++] = value;
  }

  at(i: number): number {
    return this.data[i] as number;
  }

  clear(): void {
    this.length = 0;
    if (this.data.length > 1 << 16) this.data = new Uint16Array(1024);
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
 * Postings: a frozen term-major part for the first documents and an appendable document-major tail for those after
 * it (and, while a large build runs, segments on disk between the two: {@link spillTo}). A query reads the frozen
 * part by term and scans the rest; {@link freeze} merges the rest in (linear in the postings), done by the owner
 * when the tail grows large.
 */
export class PostingStore {
  frozen: FrozenPostings = {
    offsets: new Int32Array(1),
    docs: new Int32Array(0),
    tfs: new Uint16Array(0),
    counts: new Uint16Array(0),
  };
  /** The first document of the tail (those below are frozen, or on disk while a build spills). */
  private tailBase = 0;
  private spill: SpilledPostings | undefined;
  /** Tail, document-major: doc i's postings are tailTerms[tailStart[i - tailBase] .. tailStart[i - tailBase + 1]). */
  private readonly tailStart = new GrowingInts();
  private readonly tailTerms = new GrowingInts();
  private readonly tailTfs = new GrowingShorts();
  private readonly tailCounts = new GrowingShorts();

  constructor() {
    this.tailStart.push(0);
  }

  /** Takes postings read back from a saved index as the frozen part (documents 0 to `docs` − 1). */
  load(frozen: FrozenPostings, docs: number): void {
    this.frozen = frozen;
    this.tailBase = docs;
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

  /** Whether postings are being written to disk as they come (a large build: {@link spillTo}). */
  get spilling(): boolean {
    return this.spill !== undefined;
  }

  /**
   * From now on {@link spillTail} writes the tail to a temporary file in `dir` instead of merging it, until the next
   * {@link freeze} assembles everything; false (postings stay in memory) when no file can be made there.
   */
  spillTo(dir?: string): boolean {
    if (this.spill) return true;
    try {
      this.spill = new SpilledPostings(dir);
      return true;
    } catch {
      return false;
    }
  }

  /** Writes the tail to disk as one segment (or, when the disk refuses, merges everything in memory). */
  spillTail(terms: number): void {
    const spill = this.spill;
    const tailDocs = this.tailStart.length - 1;
    if (!spill || tailDocs === 0) return;
    const segment = this.tailByTerm(terms);
    try {
      spill.add(segment);
    } catch {
      // A full disk: the segments so far are merged in memory, and so is everything after.
      this.freeze(terms);
      return;
    }
    this.tailBase += tailDocs;
    this.clearTail();
  }

  /** Calls `visit(doc, tf)` for every posting of a term outside the frozen part (on disk, then the tail). */
  scanTail(term: number, visit: (doc: number, tf: number) => void): void {
    this.spill?.visit(term, visit);
    const docs = this.tailStart.length - 1;
    for (let d = 0; d < docs; d++)
      for (let p = this.tailStart.at(d); p < this.tailStart.at(d + 1); p++)
        if (this.tailTerms.at(p) === term) visit(this.tailBase + d, this.tailTfs.at(p));
  }

  /** Whether any posting lies outside the frozen part. */
  get unfrozen(): boolean {
    return this.tailTerms.length > 0 || this.spill !== undefined;
  }

  /**
   * Merges the segments on disk (one at a time) and the tail into the frozen part, and stops spilling; `terms` is
   * how many term ids exist now.
   */
  freeze(terms: number): void {
    const tailDocs = this.tailStart.length - 1;
    const spill = this.spill;
    if (tailDocs === 0 && !spill && this.frozen.offsets.length === terms + 1) return;
    const old = this.frozen;
    const oldTerms = old.offsets.length - 1;
    const sizes = new Int32Array(terms + 1);
    for (let t = 0; t < oldTerms; t++)
      sizes[t + 1] = (old.offsets[t + 1] as number) - (old.offsets[t] as number);
    spill?.countInto(sizes);
    const tailTerms = this.tailTerms.view();
    for (const t of tailTerms) sizes[t + 1] = (sizes[t + 1] as number) + 1;
    const offsets = new Int32Array(terms + 1);
    for (let t = 0; t < terms; t++) offsets[t + 1] = (offsets[t] as number) + (sizes[t + 1] as number);
    const total = offsets[terms] as number;
    const docs = new Int32Array(total);
    const tfs = new Uint16Array(total);
    const counts = new Uint16Array(total);
    // Old postings first (their documents are lower), then the segments and the tail in document order: each
    // list stays ascending.
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
    if (spill) {
      for (const segment of spill.inOrder())
        for (let i = 0; i < segment.terms.length; i++) {
          const t = segment.terms[i] as number;
          const from = segment.offsets[i] as number;
          const to = segment.offsets[i + 1] as number;
          const at = fill[t] as number;
          docs.set(segment.docs.subarray(from, to), at);
          tfs.set(segment.tfs.subarray(from, to), at);
          counts.set(segment.counts.subarray(from, to), at);
          fill[t] = at + (to - from);
        }
      spill.close();
      this.spill = undefined;
    }
    for (let d = 0; d < tailDocs; d++)
      for (let p = this.tailStart.at(d); p < this.tailStart.at(d + 1); p++) {
        const t = tailTerms[p] as number;
        const at = fill[t] as number;
        docs[at] = this.tailBase + d;
        tfs[at] = this.tailTfs.at(p);
        counts[at] = this.tailCounts.at(p);
        fill[t] = at + 1;
      }
    this.frozen = { offsets, docs, tfs, counts };
    this.tailBase += tailDocs;
    this.clearTail();
  }

  /** The tail, term-major (a counting sort by term; documents stay ascending within a term). */
  private tailByTerm(terms: number): SegmentPostings {
    const tailTerms = this.tailTerms.view();
    const at = new Int32Array(terms);
    for (const t of tailTerms) at[t] = (at[t] as number) + 1;
    let distinct = 0;
    for (let t = 0; t < terms; t++) if ((at[t] as number) > 0) distinct++;
    const termList = new Int32Array(distinct);
    const offsets = new Int32Array(distinct + 1);
    for (let t = 0, i = 0; t < terms; t++) {
      const n = at[t] as number;
      if (n === 0) continue;
      termList[i] = t;
      at[t] = offsets[i] as number;
      offsets[i + 1] = (offsets[i] as number) + n;
      i++;
    }
    const n = tailTerms.length;
    const docs = new Int32Array(n);
    const tfs = new Uint16Array(n);
    const counts = new Uint16Array(n);
    const tailDocs = this.tailStart.length - 1;
    for (let d = 0; d < tailDocs; d++)
      for (let p = this.tailStart.at(d); p < this.tailStart.at(d + 1); p++) {
        const t = tailTerms[p] as number;
        const to = at[t] as number;
        docs[to] = this.tailBase + d;
        tfs[to] = this.tailTfs.at(p);
        counts[to] = this.tailCounts.at(p);
        at[t] = to + 1;
      }
    return { terms: termList, offsets, docs, tfs, counts };
  }

  private clearTail(): void {
    this.tailStart.clear();
    this.tailStart.push(0);
    this.tailTerms.clear();
    this.tailTfs.clear();
    this.tailCounts.clear();
  }
}
