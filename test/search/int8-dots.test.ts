import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { assemble } from '../../scripts/build-kernels.mjs';
import { DocVectors } from '../../src/search/vectors/chunk-vectors.js';
import { Int8Dots, KERNEL } from '../../src/search/vectors/kernels/int8-dots.js';

/** A seeded unit vector. */
function unit(seed: number, k: number): Float32Array {
  let x = seed * 2654435761;
  const v = Float32Array.from({ length: k }, () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 1073741824 - 1;
  });
  const norm = Math.hypot(...v);
  return v.map((c) => c / norm);
}

describe('the nearest-neighbour scan (WebAssembly SIMD kernel)', () => {
  it('gives the cosines of the int8 rows, as the JavaScript loop would, through growth and a reload', () => {
    for (const k of [64, 16, 256]) {
      expect(Int8Dots.create(k, 4)).toBeDefined();
      const vectors = new DocVectors(k);
      const rows = 3000; // past the first capacity: the matrix grows twice
      for (let doc = 0; doc < rows; doc++) vectors.set(doc, unit(doc + 1, k));
      const query = unit(7777, k);
      const bytes = vectors.bytes();
      const expected = Array.from({ length: rows }, (_, i) => {
        let dot = 0;
        for (let j = 0; j < k; j++) dot += (bytes[i * k + j] as number) * (query[j] as number);
        return Math.max(0, dot / 127);
      });
      for (const scan of [vectors, DocVectors.fromBytes(k, bytes.slice())]) {
        const got = scan.cosines(query, rows + 5);
        expect(got.length).toBe(rows + 5);
        // The query is quantized to int16 in the kernel: agreement to 1e-4 of a cosine.
        for (let i = 0; i < rows; i++)
          expect(Math.abs((got[i] as number) - (expected[i] as number))).toBeLessThan(1e-4);
        expect([...got.slice(rows)]).toEqual([0, 0, 0, 0, 0]);
      }
    }
  });

  it('ships the bytes its .wat source assembles to', async () => {
    expect(await assemble('src/search/vectors/kernels/int8-dots.wat')).toBe(KERNEL);
  });

  it('leaves dimensions the kernel cannot take (not a multiple of 16, or over 256) to the JavaScript loop', () => {
    expect(Int8Dots.create(10, 4)).toBeUndefined();
    expect(Int8Dots.create(512, 4)).toBeUndefined();
    const vectors = new DocVectors(10);
    vectors.set(0, unit(1, 10));
    expect(vectors.cosines(unit(1, 10), 1)[0]).toBeCloseTo(1, 2);
  });
});
