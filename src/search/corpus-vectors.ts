/**
 * Vectors learned from the indexed corpus itself (latent semantic analysis): a truncated SVD of the
 * chunk × term tf-idf matrix, so terms that occur in the same chunks land near each other. Nothing to
 * download; built at index time by a randomized SVD (a few sparse passes and a small dense eigenproblem).
 */

/** Below this many documents every term joins the vocabulary. */
const SMALL_CORPUS = 500;

/** Options for {@link CorpusVectors.build}. */
export interface CorpusVectorsOptions {
  /** Dimensions kept; default 64. */
  dimensions?: number;
  /** Most terms in the vocabulary (by document frequency); default 10,000. */
  maxTerms?: number;
  /** Power iterations of the randomized SVD (sharper components, one more pass each; at most 3); default 2. */
  powerIterations?: number;
}

/** The term → vector map of a corpus, and the vectors of its documents. */
export class CorpusVectors {
  private constructor(
    private readonly vocabulary: ReadonlyMap<string, number>,
    private readonly idf: Float64Array,
    /** vocabulary × dimensions, row-major: the right singular vectors. */
    private readonly basis: Float64Array,
    readonly dimensions: number,
    /** One unit vector per document (zero when it has no vocabulary term). */
    readonly documents: readonly Float32Array[],
  ) {}

  /**
   * Learns vectors from documents given as token lists (the index's own tokens). Yields to the event loop
   * between passes, so a server stays responsive while a large repository's vectors are built.
   */
  static async build(
    documents: readonly (readonly string[])[],
    options: CorpusVectorsOptions = {},
  ): Promise<CorpusVectors> {
    const maxTerms = options.maxTerms ?? 10_000;
    const n = documents.length;
    // Vocabulary: terms in at most half of the documents, the most frequent first; in a large corpus only
    // terms seen twice or more (a term of one document relates it to nothing), in a small one every term.
    const df = new Map<string, number>();
    for (const tokens of documents) for (const term of new Set(tokens)) df.set(term, (df.get(term) ?? 0) + 1);
    const minCount = n < SMALL_CORPUS ? 1 : 2;
    const kept = [...df.entries()]
      .filter(([, count]) => count >= minCount && count <= Math.max(2, n / 2))
      .sort((a, b) => b[1] - a[1])
      .slice(0, maxTerms);
    const vocabulary = new Map(kept.map(([term], i) => [term, i]));
    const idf = Float64Array.from(kept, ([, count]) => Math.log(n / count));
    const terms = vocabulary.size;
    const k = Math.max(1, Math.min(options.dimensions ?? 64, terms, n));

    // The sparse matrix in compressed rows: log(1 + tf) × idf, each row unit length.
    const rowStart = new Int32Array(n + 1);
    const cols: number[] = [];
    const vals: number[] = [];
    documents.forEach((tokens, row) => {
      const tf = new Map<number, number>();
      for (const token of tokens) {
        const col = vocabulary.get(token);
        if (col !== undefined) tf.set(col, (tf.get(col) ?? 0) + 1);
      }
      let norm = 0;
      const entries = [...tf].map(([col, count]) => {
        const value = Math.log1p(count) * (idf[col] as number);
        norm += value * value;
        return [col, value] as const;
      });
      norm = Math.sqrt(norm) || 1;
      for (const [col, value] of entries) {
        cols.push(col);
        vals.push(value / norm);
      }
      rowStart[row + 1] = cols.length;
    });
    const colIdx = Int32Array.from(cols);
    const value = Float64Array.from(vals);

    // Randomized range finder: Y = X Ω, then (X Xᵀ)^q Y, orthonormalised after each pass.
    const width = Math.min(k + 8, n, terms);
    let random = 12345;
    const next = () => {
      random = (random * 1103515245 + 12345) & 0x7fffffff;
      return random / 0x7fffffff - 0.5;
    };
    let omega: Float64Array = new Float64Array(terms * width).map(next);
    await yieldToLoop();
    let y = multiplyRows(rowStart, colIdx, value, omega, n, width);
    // Power passes sharpen the subspace; Y is orthonormalised once, after them: with two passes the weakest
    // kept direction shrinks by (σk/σ1)^5 at most, far inside float64's precision, and Gram-Schmidt over tens of
    // thousands of rows is the most expensive step.
    for (let i = 0; i < Math.min(3, options.powerIterations ?? 2); i++) {
      omega = multiplyColumns(rowStart, colIdx, value, y, n, terms, width);
      await yieldToLoop();
      y = multiplyRows(rowStart, colIdx, value, omega, n, width);
    }
    orthonormalise(y, n, width);
    await yieldToLoop();
    // B = Qᵀ X (width × terms), kept as its transpose (terms × width).
    const bt = multiplyColumns(rowStart, colIdx, value, y, n, terms, width);
    // Eigenvectors of B Bᵀ (width × width) give B's left singular vectors; V = Bᵀ U Σ⁻¹.
    const gram = new Float64Array(width * width);
    for (let t = 0; t < terms; t++)
      for (let a = 0; a < width; a++) {
        const ba = bt[t * width + a] as number;
        if (ba === 0) continue;
        for (let b = a; b < width; b++)
          gram[a * width + b] = (gram[a * width + b] as number) + ba * (bt[t * width + b] as number);
      }
    for (let a = 0; a < width; a++)
      for (let b = 0; b < a; b++) gram[a * width + b] = gram[b * width + a] as number;
    const { values, vectors } = symmetricEigen(gram, width);
    const order = [...values.keys()]
      .sort((a, b) => (values[b] as number) - (values[a] as number))
      .slice(0, k);
    const basis = new Float64Array(terms * k);
    order.forEach((e, j) => {
      const sigma = Math.sqrt(Math.max(values[e] as number, 1e-12));
      for (let t = 0; t < terms; t++) {
        let sum = 0;
        for (let a = 0; a < width; a++)
          sum += (bt[t * width + a] as number) * (vectors[a * width + e] as number);
        basis[t * k + j] = sum / sigma;
      }
    });
    await yieldToLoop();
    // A document's vector is its row of X V (the same weights encode() gives a new text), unit length.
    const projected = multiplyRows(rowStart, colIdx, value, basis, n, k);
    const docs = Array.from({ length: n }, (_, row) => unit(projected.subarray(row * k, (row + 1) * k)));
    return new CorpusVectors(vocabulary, idf, basis, k, docs);
  }

  /** The unit vector of a token list (a query's or a document's); zero when no token is known. */
  encode(tokens: readonly string[]): Float32Array {
    const k = this.dimensions;
    const tf = new Map<number, number>();
    for (const token of tokens) {
      const col = this.vocabulary.get(token);
      if (col !== undefined) tf.set(col, (tf.get(col) ?? 0) + 1);
    }
    const out = new Float64Array(k);
    for (const [col, count] of tf) {
      const weight = Math.log1p(count) * (this.idf[col] as number);
      for (let j = 0; j < k; j++) out[j] = (out[j] as number) + weight * (this.basis[col * k + j] as number);
    }
    return unit(out);
  }
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function unit(vector: Float64Array): Float32Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  return Float32Array.from(vector, (x) => x / norm);
}

/** X (n × terms, sparse rows) times M (terms × width): n × width. */
function multiplyRows(
  rowStart: Int32Array,
  cols: Int32Array,
  vals: Float64Array,
  m: Float64Array,
  n: number,
  width: number,
): Float64Array {
  const out = new Float64Array(n * width);
  for (let row = 0; row < n; row++)
    for (let p = rowStart[row] as number; p < (rowStart[row + 1] as number); p++) {
      const v = vals[p] as number;
      const base = (cols[p] as number) * width;
      for (let j = 0; j < width; j++)
        out[row * width + j] = (out[row * width + j] as number) + v * (m[base + j] as number);
    }
  return out;
}

/** Xᵀ (terms × n) times M (n × width): terms × width. */
function multiplyColumns(
  rowStart: Int32Array,
  cols: Int32Array,
  vals: Float64Array,
  m: Float64Array,
  n: number,
  terms: number,
  width: number,
): Float64Array {
  const out = new Float64Array(terms * width);
  for (let row = 0; row < n; row++)
    for (let p = rowStart[row] as number; p < (rowStart[row + 1] as number); p++) {
      const v = vals[p] as number;
      const base = (cols[p] as number) * width;
      for (let j = 0; j < width; j++)
        out[base + j] = (out[base + j] as number) + v * (m[row * width + j] as number);
    }
  return out;
}

/**
 * Modified Gram-Schmidt on the columns of a rows × width row-major matrix, in place. The columns are
 * copied out to contiguous arrays first: walking a column of a row-major matrix misses the cache at
 * every step, and this runs on matrices of tens of thousands of rows.
 */
function orthonormalise(m: Float64Array, rows: number, width: number): void {
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
function symmetricEigen(input: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
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
