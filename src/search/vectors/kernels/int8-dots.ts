// The nearest-neighbour scan's inner loop as a WebAssembly SIMD kernel: int8 rows against an int16 query, 16 lanes
// at a time (i16x8 dot products into i32x4). V8 runs the same loop in JavaScript at about a third of the speed (JDK
// tree, 238k rows of 64: ~20 ms → ~7 ms). The bytes are int8-dots.wat, assembled by scripts/build-kernels.mjs (wabt);
// small enough to ship inline (a test checks the two agree), so nothing is read or downloaded at run time.
import { kernelModule, type Memory, PAGE, type Wasm, wasm } from './wasm.js';

/** The kernel's module, base64. */
export const KERNEL =
  'AGFzbQEAAAABCQFgBX9/f39/AAIPAQNlbnYGbWVtb3J5AgABAwIBAAcIAQRkb3RzAAAKtgEBswECAn8CeyAEIAJBAnRqIQUCQANAIAQgBU8NAf0MAAAAAAAAAAAAAAAAAAAAACEHQQAhBgNAIAEgBmr9AAQAIQggByAI/YcBIAAgBkEBdGr9AAQA/boB/a4BIQcgByAI/YgBIAAgBkEBdGr9AAQQ/boB/a4BIQcgBkEQaiEGIAYgA0kNAAsgBCAH/RsAIAf9GwFqIAf9GwIgB/0bA2pqNgIAIAEgA2ohASAEQQRqIQQMAAsLCw==';

/** The kernel's entry: `dots(q, data, rows, k, out)`, byte offsets into its memory. */
type Dots = (q: number, data: number, rows: number, k: number, out: number) => void;

/** Bytes before the rows: the int16 query (up to 512 dimensions). */
const QUERY_BYTES = 1024;

/**
 * A growable int8 matrix in WebAssembly memory with its dot-product scan: the query, the rows and the scan's output
 * laid out in one memory. Only for dimensions the kernel takes (a multiple of 16, at most 256: the i32 sums cannot
 * overflow); {@link Int8Dots.create} answers undefined otherwise.
 */
export class Int8Dots {
  private constructor(
    readonly dimensions: number,
    private readonly capacity: number,
    private readonly memory: Memory,
    private readonly dots: Dots,
  ) {}

  /** A matrix with room for `capacity` rows, or undefined where the kernel cannot serve. */
  static create(dimensions: number, capacity: number): Int8Dots | undefined {
    const module = kernelModule(KERNEL);
    if (!module || dimensions === 0 || dimensions % 16 !== 0 || dimensions > 256) return undefined;
    const bytes = QUERY_BYTES + capacity * dimensions + capacity * 4;
    const memory = new (wasm as Wasm).Memory({ initial: Math.ceil(bytes / PAGE) });
    const { dots } = new (wasm as Wasm).Instance(module, { env: { memory } }).exports as { dots: Dots };
    return new Int8Dots(dimensions, capacity, memory, dots);
  }

  /** The rows' bytes, to read and write in place (`capacity × dimensions`). */
  get rows(): Int8Array {
    return new Int8Array(this.memory.buffer, QUERY_BYTES, this.capacity * this.dimensions);
  }

  /** Each of the first `rows` rows' cosine with a unit `query` (rows hold components × 127), negatives as 0. */
  scan(query: Float32Array, rows: number, scores: Float64Array): void {
    const k = this.dimensions;
    const q = new Int16Array(this.memory.buffer, 0, k);
    for (let j = 0; j < k; j++) q[j] = Math.round((query[j] as number) * 32767);
    const out = QUERY_BYTES + this.capacity * k;
    this.dots(0, QUERY_BYTES, rows, k, out);
    const sums = new Int32Array(this.memory.buffer, out, rows);
    for (let i = 0; i < rows; i++) {
      const dot = (sums[i] as number) / (32767 * 127);
      scores[i] = dot > 0 ? dot : 0;
    }
  }
}
