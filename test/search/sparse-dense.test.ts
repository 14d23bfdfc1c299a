import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { assemble } from '../../scripts/build-kernels.mjs';
import {
  SPARSE_DENSE_KERNEL,
  SparseDense,
  type SparseRows,
} from '../../src/search/vectors/kernels/sparse-dense.js';

/** A seeded sparse matrix: `rows` rows over `cols` columns, a few entries each, ascending. */
function sparse(rows: number, cols: number, seed: number): SparseRows {
  let x = seed;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  const starts = new Int32Array(rows + 1);
  const entries: Array<[number, number]> = [];
  for (let r = 0; r < rows; r++) {
    const picked = new Set<number>();
    for (let i = 0; i < 1 + Math.floor(next() * 6); i++) picked.add(Math.floor(next() * cols));
    for (const c of [...picked].sort((a, b) => a - b)) entries.push([c, next() - 0.5]);
    starts[r + 1] = entries.length;
  }
  return {
    starts,
    cols: Int32Array.from(entries, ([c]) => c),
    values: Float32Array.from(entries, ([, v]) => v),
  };
}

describe('the sparse × dense product (WebAssembly SIMD kernel)', () => {
  it('gives the product as a float64 loop does, within float32 rounding', () => {
    for (const width of [72, 64, 4, 6]) {
      const s = sparse(500, 300, width);
      const m = Float32Array.from({ length: 300 * width }, (_, i) => Math.sin(i));
      const out = new SparseDense().multiply(s, m, width);
      expect(out.length).toBe(500 * width);
      let worst = 0;
      let nonzero = 0;
      for (let r = 0; r < 500; r++)
        for (let j = 0; j < width; j++) {
          let sum = 0;
          for (let q = s.starts[r] as number; q < (s.starts[r + 1] as number); q++)
            sum += (s.values[q] as number) * (m[(s.cols[q] as number) * width + j] as number);
          worst = Math.max(worst, Math.abs((out[r * width + j] as number) - sum));
          if (sum !== 0) nonzero++;
        }
      expect(worst).toBeLessThan(1e-5);
      expect(nonzero).toBeGreaterThan(400 * width);
    }
  });

  it('ships the module its .wat assembles to', async () => {
    const wat = new URL('../../src/search/vectors/kernels/sparse-dense.wat', import.meta.url).pathname;
    expect(await assemble(wat)).toBe(SPARSE_DENSE_KERNEL);
  });
});
