// A sparse matrix times a dense one (S M), the inner loop of learning corpus vectors (a randomized SVD's passes), as a
// WebAssembly SIMD kernel: float32, 4 lanes, the sparse matrix in compressed rows so each output row is summed in
// place. JavaScript's loop over the same rows runs at a fraction of the speed (a 60k-chunk sample: ~0.6 s a pass on a
// loaded machine). The bytes are sparse-dense.wat, assembled by scripts/build-kernels.mjs (wabt) and shipped inline.
import { kernelModule, type Memory, PAGE, type Wasm, wasm } from './wasm.js';

/** The kernel's module, base64. */
export const SPARSE_DENSE_KERNEL =
  'AGFzbQEAAAABCwFgB39/f39/f38AAg8BA2VudgZtZW1vcnkCAAEDAgEABwwBCG11bHRpcGx5AAAKtwEBtAECBn8BeyAFQQJ0IQsCQANAIAcgA08NASAAIAdBAnRqKAIAIQggACAHQQJ0aigCBCEJAkADQCAIIAlPDQEgAiAIQQJ0aioCAP0TIQ0gBCABIAhBAnRqKAIAIAtsaiEMQQAhCgNAIAYgCmogBiAKav0ABAAgDSAMIApq/QAEAP3mAf3kAf0LBAAgCkEQaiEKIAogC0kNAAsgCEEBaiEIDAALCyAGIAtqIQYgB0EBaiEHDAALCws=';

/** A sparse matrix in compressed rows: row r's entries are `starts[r] .. starts[r + 1]` of `cols` and `values`. */
export interface SparseRows {
  starts: Int32Array;
  cols: Int32Array;
  values: Float32Array;
}

type Multiply = (
  starts: number,
  cols: number,
  values: number,
  rows: number,
  m: number,
  width: number,
  out: number,
) => void;

/**
 * Products one after another in one WebAssembly memory, grown as needed: a large tree's vectors are projected a
 * block of chunks at a time, and a fresh memory per block left several blocks' worth (~90 MB each) for the garbage
 * collector at the build's peak (the Linux kernel: +150 MB).
 */
export class SparseDense {
  private memory: Memory | undefined;
  private run: Multiply | undefined;

  /** S (rows × cols, sparse) times M (cols × width, row-major): rows × width in float32, a view valid until the next call. */
  multiply(s: SparseRows, m: Float32Array, width: number): Float32Array<ArrayBuffer> {
    const rows = s.starts.length - 1;
    const module = kernelModule(SPARSE_DENSE_KERNEL);
    if (!module || width % 4 !== 0 || width === 0) return multiplyInJs(s, m, width);
    const entries = s.cols.length;
    // Laid out one after another, each 16-byte aligned: starts, cols, values, M, out.
    const align = (n: number) => Math.ceil(n / 16) * 16;
    const colsAt = align((rows + 1) * 4);
    const valuesAt = colsAt + align(entries * 4);
    const mAt = valuesAt + align(entries * 4);
    const outAt = mAt + align(m.length * 4);
    const pages = Math.ceil((outAt + rows * width * 4) / PAGE);
    if (!this.memory || !this.run) {
      this.memory = new (wasm as Wasm).Memory({ initial: pages });
      this.run = (
        new (wasm as Wasm).Instance(module, { env: { memory: this.memory } }).exports as {
          multiply: Multiply;
        }
      ).multiply;
    } else if (this.memory.buffer.byteLength < pages * PAGE)
      this.memory.grow(pages - this.memory.buffer.byteLength / PAGE);
    const { buffer } = this.memory;
    new Int32Array(buffer, 0, rows + 1).set(s.starts);
    new Int32Array(buffer, colsAt, entries).set(s.cols);
    new Float32Array(buffer, valuesAt, entries).set(s.values);
    new Float32Array(buffer, mAt, m.length).set(m);
    const out = new Float32Array(buffer, outAt, rows * width);
    out.fill(0);
    this.run(0, colsAt, valuesAt, rows, mAt, width, outAt);
    return out;
  }
}

/** The same product where the kernel cannot serve (no WebAssembly SIMD, or a width not a multiple of 4). */
function multiplyInJs(s: SparseRows, m: Float32Array, width: number): Float32Array<ArrayBuffer> {
  const rows = s.starts.length - 1;
  const out = new Float32Array(rows * width);
  for (let r = 0; r < rows; r++) {
    const at = r * width;
    for (let q = s.starts[r] as number; q < (s.starts[r + 1] as number); q++) {
      const base = (s.cols[q] as number) * width;
      const v = s.values[q] as number;
      for (let j = 0; j < width; j++) out[at + j] = (out[at + j] as number) + v * (m[base + j] as number);
    }
  }
  return out;
}
