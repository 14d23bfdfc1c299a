// Postings of a large build written to a temporary file in segments as they come, instead of being merged in
// memory again and again: a build holds only the newest postings, and the whole is assembled once, at the end, one
// segment at a time (the Linux kernel's postings are larger than its memory budget allows twice over).
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One segment: its distinct terms (ascending) with where each one's postings start, and where it is in the file. */
interface Segment {
  terms: Int32Array;
  offsets: Int32Array;
  /** Byte offsets of its docs (Int32), tfs and counts (Uint16) in the file. */
  docsAt: number;
  tfsAt: number;
  countsAt: number;
}

/** A segment's postings, term-major: `docs[offsets[i] .. offsets[i + 1])` belong to `terms[i]`. */
export interface SegmentPostings {
  terms: Int32Array;
  offsets: Int32Array;
  docs: Int32Array;
  tfs: Uint16Array;
  counts: Uint16Array;
}

/** Spill files not yet removed: gone when the process exits, whatever happened to the build. */
const open = new Set<string>();
let cleanupHooked = false;

/** Segments of postings in one temporary file (`mcpkit-postings-*.bin` under the system's temporary directory). */
export class SpilledPostings {
  private readonly file: string;
  private fd: number;
  private bytes = 0;
  readonly segments: Segment[] = [];

  constructor(dir = tmpdir()) {
    this.file = join(dir, `mcpkit-postings-${process.pid}-${Math.random().toString(36).slice(2)}.bin`);
    this.fd = openSync(this.file, 'wx+', 0o600);
    // Unlinked at once where an open file can be (Linux, macOS): the process reads and writes it by its handle,
    // and the disk space is freed however the process ends — a kill included. Elsewhere it goes at exit.
    try {
      unlinkSync(this.file);
      return;
    } catch {
      open.add(this.file);
    }
    if (!cleanupHooked) {
      cleanupHooked = true;
      process.once('exit', () => {
        for (const file of open) unlinkQuietly(file);
      });
    }
  }

  /** How many postings are on disk. */
  get size(): number {
    let total = 0;
    for (const segment of this.segments) total += segment.offsets[segment.terms.length] as number;
    return total;
  }

  /** Writes a segment (documents above every segment's before). */
  add(postings: SegmentPostings): void {
    const write = (array: Int32Array | Uint16Array) => {
      const at = this.bytes;
      const data = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
      let done = 0;
      while (done < data.length) done += writeSync(this.fd, data, done, data.length - done, at + done);
      // 4-aligned, so a segment's Int32 docs read back into an aligned buffer.
      this.bytes = at + data.length + ((4 - (data.length % 4)) % 4);
      return at;
    };
    const docsAt = write(postings.docs);
    const tfsAt = write(postings.tfs);
    const countsAt = write(postings.counts);
    this.segments.push({ terms: postings.terms, offsets: postings.offsets, docsAt, tfsAt, countsAt });
  }

  /** Calls `visit(doc, tf)` for every posting of a term on disk, documents ascending (a query during a build). */
  visit(term: number, visit: (doc: number, tf: number) => void): void {
    for (const segment of this.segments) {
      const i = indexOf(segment.terms, term);
      if (i < 0) continue;
      const from = segment.offsets[i] as number;
      const n = (segment.offsets[i + 1] as number) - from;
      const docs = new Int32Array(n);
      const tfs = new Uint16Array(n);
      this.read(docs, segment.docsAt + from * 4);
      this.read(tfs, segment.tfsAt + from * 2);
      for (let p = 0; p < n; p++) visit(docs[p] as number, tfs[p] as number);
    }
  }

  /** Adds each term's number of postings on disk to `sizes[term + 1]`. */
  countInto(sizes: Int32Array): void {
    for (const { terms, offsets } of this.segments)
      for (let i = 0; i < terms.length; i++) {
        const t = (terms[i] as number) + 1;
        sizes[t] = (sizes[t] as number) + (offsets[i + 1] as number) - (offsets[i] as number);
      }
  }

  /** Each segment's postings, read back one at a time, in the order written. */
  *inOrder(): Generator<SegmentPostings> {
    for (const segment of this.segments) {
      const n = segment.offsets[segment.terms.length] as number;
      const docs = new Int32Array(n);
      const tfs = new Uint16Array(n);
      const counts = new Uint16Array(n);
      this.read(docs, segment.docsAt);
      this.read(tfs, segment.tfsAt);
      this.read(counts, segment.countsAt);
      yield { terms: segment.terms, offsets: segment.offsets, docs, tfs, counts };
    }
  }

  /** Removes the file. */
  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
    if (open.delete(this.file)) unlinkQuietly(this.file);
  }

  private read(into: Int32Array | Uint16Array, at: number): void {
    const data = new Uint8Array(into.buffer, into.byteOffset, into.byteLength);
    let done = 0;
    while (done < data.length) {
      const got = readSync(this.fd, data, done, data.length - done, at + done);
      if (got === 0) throw new Error(`${this.file} ended early`);
      done += got;
    }
  }
}

/** Where a value is in an ascending array, or −1. */
function indexOf(sorted: Int32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = sorted[mid] as number;
    if (at === value) return mid;
    if (at < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone.
  }
}
