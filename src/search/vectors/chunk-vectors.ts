// The vectors of an index's chunks: one int8 row per document (a quarter of float32's memory and file size, and a
// cosine that ranks as the float one does within rounding), and what encodes a query.

/** Anything that turns text into a unit vector: a static model, or vectors learned from the corpus. */
export interface Embedder {
  encode(text: string): Float32Array;
}

import { Int8Dots } from './kernels/int8-dots.js';

/** int8 steps per unit: a unit vector's components lie in [−1, 1]. */
const SCALE = 127;

/** One quantized unit vector per document, in a growable matrix; a document without one scores 0. */
export class DocVectors {
  private data: Int8Array;
  private rows = 0;
  /** The rows in WebAssembly memory with the SIMD scan, where the kernel serves these dimensions. */
  private simd: Int8Dots | undefined;

  constructor(
    readonly dimensions: number,
    capacity = 1024,
  ) {
    this.simd = Int8Dots.create(dimensions, capacity);
    this.data = this.simd?.rows ?? new Int8Array(dimensions * capacity);
  }

  /** Vectors saved earlier (documents × dimensions, int8). */
  static fromBytes(dimensions: number, data: Int8Array): DocVectors {
    const rows = dimensions > 0 ? data.length / dimensions : 0;
    const vectors = new DocVectors(dimensions, Math.max(rows, 1));
    if (vectors.simd) vectors.data.set(data);
    else vectors.data = data;
    vectors.rows = rows;
    return vectors;
  }

  /** The int8 matrix of the documents that have rows (for a saved index). */
  bytes(): Int8Array {
    return this.data.subarray(0, this.rows * this.dimensions);
  }

  /** How many documents have a row (the ones after that have none yet). */
  get size(): number {
    return this.rows;
  }

  /** Stores a document's unit vector (documents in between get zero rows). */
  set(doc: number, vector: Float32Array | Float64Array): void {
    const k = this.dimensions;
    if ((doc + 1) * k > this.data.length) {
      const capacity = Math.max(2 * (this.data.length / k), doc + 1);
      const simd = Int8Dots.create(k, capacity);
      const grown = simd?.rows ?? new Int8Array(capacity * k);
      grown.set(this.data);
      this.simd = simd;
      this.data = grown;
    }
    for (let j = 0; j < k; j++) this.data[doc * k + j] = Math.round((vector[j] as number) * SCALE);
    if (doc >= this.rows) this.rows = doc + 1;
  }

  /**
   * Each document's cosine with a unit query vector (negatives as 0), for `size` documents: one pass over the int8
   * matrix, four lanes at a time. The query is scaled to integers too, so the inner loop is integer arithmetic.
   */
  cosines(query: Float32Array, size: number): Float64Array {
    const k = this.dimensions;
    const scores = new Float64Array(size);
    if (k === 0) return scores;
    if (this.simd) {
      this.simd.scan(query, Math.min(size, this.rows), scores);
      return scores;
    }
    // Float query against int8 rows: V8 multiplies doubles faster than it widens int8 × int32 (measured).
    const q = Float64Array.from(query, (x) => x / SCALE);
    const data = this.data;
    const rows = Math.min(size, this.rows);
    const whole = k - (k % 4);
    for (let i = 0, base = 0; i < rows; i++, base += k) {
      let a = 0;
      let b = 0;
      let c = 0;
      let d = 0;
      for (let j = 0; j < whole; j += 4) {
        a += (data[base + j] as number) * (q[j] as number);
        b += (data[base + j + 1] as number) * (q[j + 1] as number);
        c += (data[base + j + 2] as number) * (q[j + 2] as number);
        d += (data[base + j + 3] as number) * (q[j + 3] as number);
      }
      for (let j = whole; j < k; j++) a += (data[base + j] as number) * (q[j] as number);
      const dot = a + b + c + d;
      scores[i] = dot > 0 ? dot : 0;
    }
    return scores;
  }
}
