// The linear algebra of the corpus vectors' randomized SVD, on plain typed arrays: unit vectors, the sample's sparse
// matrix both ways for the kernel's passes, Gram-Schmidt, and the small dense symmetric eigenproblem.
import type { SparseRows } from './kernels/sparse-dense.js';

/** The vocabulary's columns of the matrix, and which documents are rows of the product. */
export interface Sparse {
  colStart: Int32Array;
  /** Document of each entry. */
  rows: Int32Array;
  value: Float64Array;
  /** A document's row in the product, or −1 for one left out. */
  rowOf: Int32Array;
  rowCount: number;
}

/** The vector divided by its length (zero stays zero), in float32. */
export function unit(vector: Float64Array): Float32Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  return Float32Array.from(vector, (x) => x / norm);
}

/**
 * The sample's matrix both ways for the SVD's passes, in float32: by row (X, to multiply from the left: X M) and by
 * term (Xᵀ: Xᵀ M), each in compressed rows so the kernel sums every output row in place.
 */
export function sampleMatrices(x: Sparse): { byRow: SparseRows; byTerm: SparseRows } {
  const terms = x.colStart.length - 1;
  const starts = new Int32Array(terms + 1);
  for (let t = 0; t < terms; t++) {
    let n = 0;
    for (let p = x.colStart[t] as number; p < (x.colStart[t + 1] as number); p++)
      if ((x.rowOf[x.rows[p] as number] as number) >= 0) n++;
    starts[t + 1] = (starts[t] as number) + n;
  }
  const cols = new Int32Array(starts[terms] as number);
  const values = new Float32Array(cols.length);
  for (let t = 0, at = 0; t < terms; t++)
    for (let p = x.colStart[t] as number; p < (x.colStart[t + 1] as number); p++) {
      const row = x.rowOf[x.rows[p] as number] as number;
      if (row < 0) continue;
      cols[at] = row;
      values[at++] = x.value[p] as number;
    }
  return { byRow: byRow(x), byTerm: { starts, cols, values } };
}

/** X's rows (the documents `rowOf` maps to a row) in compressed rows: each row's terms in ascending order. */
export function byRow(x: Sparse): SparseRows {
  const terms = x.colStart.length - 1;
  const starts = new Int32Array(x.rowCount + 1);
  for (let p = 0; p < x.rows.length; p++) {
    const row = x.rowOf[x.rows[p] as number] as number;
    if (row >= 0) starts[row + 1] = (starts[row + 1] as number) + 1;
  }
  for (let r = 0; r < x.rowCount; r++) starts[r + 1] = (starts[r + 1] as number) + (starts[r] as number);
  const fill = starts.slice(0, x.rowCount);
  const cols = new Int32Array(starts[x.rowCount] as number);
  const values = new Float32Array(cols.length);
  for (let t = 0; t < terms; t++)
    for (let p = x.colStart[t] as number; p < (x.colStart[t + 1] as number); p++) {
      const row = x.rowOf[x.rows[p] as number] as number;
      if (row < 0) continue;
      const at = fill[row] as number;
      fill[row] = at + 1;
      cols[at] = t;
      values[at] = x.value[p] as number;
    }
  return { starts, cols, values };
}

/**
 * Modified Gram-Schmidt on the columns of a rows × width row-major matrix, in place. The columns are
 * copied out to contiguous arrays first: walking a column of a row-major matrix misses the cache at
 * every step, and this runs on matrices of tens of thousands of rows.
 */
export function orthonormalise(m: Float64Array, rows: number, width: number): void {
  const columns = Array.from({ length: width }, (_, j) => {
    const column = new Float64Array(rows);
    for (let r = 0; r < rows; r++) column[r] = m[r * width + j] as number;
    return column;
  });
  for (let j = 0; j < width; j++) {
    const cj = columns[j] as Float64Array;
    for (let i = 0; i < j; i++) {
      const ci = columns[i] as Float64Array;
      let dot = 0;
      for (let r = 0; r < rows; r++) dot += (ci[r] as number) * (cj[r] as number);
      for (let r = 0; r < rows; r++) cj[r] = (cj[r] as number) - dot * (ci[r] as number);
    }
    let norm = 0;
    for (let r = 0; r < rows; r++) norm += (cj[r] as number) ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let r = 0; r < rows; r++) cj[r] = (cj[r] as number) / norm;
  }
  for (let j = 0; j < width; j++) {
    const cj = columns[j] as Float64Array;
    for (let r = 0; r < rows; r++) m[r * width + j] = cj[r] as number;
  }
}

/** Eigenvalues and eigenvectors (columns) of a small symmetric matrix, by cyclic Jacobi rotations. */
export function symmetricEigen(
  input: Float64Array,
  n: number,
): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(input);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += (a[p * n + q] as number) ** 2;
    if (off < 1e-20) break;
    for (let p = 0; p < n; p++)
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q] as number;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = ((a[q * n + q] as number) - (a[p * n + p] as number)) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p] as number;
          const akq = a[k * n + q] as number;
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k] as number;
          const aqk = a[q * n + k] as number;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p] as number;
          const vkq = v[k * n + q] as number;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
  }
  return { values: Float64Array.from({ length: n }, (_, i) => a[i * n + i] as number), vectors: v };
}
