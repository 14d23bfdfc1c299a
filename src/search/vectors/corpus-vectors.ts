/**
 * Vectors learned from the indexed corpus itself (latent semantic analysis): a truncated SVD of the
 * chunk × term tf-idf matrix, so terms that occur in the same chunks land near each other. Nothing to
 * download; built at index time by a randomized SVD (a few sparse passes and a small dense eigenproblem).
 */

import { SparseDense, type SparseRows } from './kernels/sparse-dense.js';
import { byRow, orthonormalise, sampleMatrices, symmetricEigen, unit } from './linear-algebra.js';

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

/**
 * A sparse document × term matrix given term by term (the postings of an index): for each term id its documents
 * (ascending) and counts, with `alive` marking the documents that count (1) and those removed (0).
 */
export interface TermMatrix {
  /** Document numbers run from 0 to `documents` − 1. */
  documents: number;
  terms: readonly string[];
  offsets: Int32Array;
  docs: Int32Array;
  counts: Uint16Array;
  alive?: Uint8Array;
}

/** Above this many documents the basis is learned from an even sample of this many (every document is projected). */
const SAMPLE = 60_000;

/** What a saved index keeps of the vectors' model: enough to encode a query. */
export interface CorpusModel {
  terms: string[];
  idf: Float32Array;
  /** terms × dimensions, row-major. */
  basis: Float32Array;
  dimensions: number;
}

/** The term → vector map of a corpus, and the vectors of its documents. */
export class CorpusVectors {
  private constructor(
    private readonly vocabulary: ReadonlyMap<string, number>,
    private readonly idf: Float64Array | Float32Array,
    /** vocabulary × dimensions, row-major: the right singular vectors. */
    private readonly basis: Float64Array | Float32Array,
    readonly dimensions: number,
    /** documents × dimensions, row-major, each row a unit vector (zero when it has no vocabulary term). */
    readonly matrix: Float32Array,
  ) {}

  /** One unit vector per document. */
  get documents(): Float32Array[] {
    const k = this.dimensions;
    return Array.from({ length: this.matrix.length / k }, (_, i) => this.matrix.subarray(i * k, (i + 1) * k));
  }

  /** The model part, for a saved index. */
  model(): CorpusModel {
    const terms = [...this.vocabulary.keys()];
    return {
      terms,
      idf: Float32Array.from(this.idf),
      basis: Float32Array.from(this.basis),
      dimensions: this.dimensions,
    };
  }

  /** Vectors from a saved model (no documents: those are saved beside it). */
  static fromModel(model: CorpusModel): CorpusVectors {
    return new CorpusVectors(
      new Map(model.terms.map((term, i) => [term, i])),
      model.idf,
      model.basis,
      model.dimensions,
      new Float32Array(0),
    );
  }

  /**
   * Learns vectors from documents given as token lists (the index's own tokens). Yields to the event loop
   * between passes, so a server stays responsive while a large repository's vectors are built.
   */
  static build(
    documents: readonly (readonly string[])[],
    options: CorpusVectorsOptions = {},
  ): Promise<CorpusVectors> {
    const ids = new Map<string, number>();
    const lists: Map<number, number>[] = documents.map((tokens) => {
      const tf = new Map<number, number>();
      for (const token of tokens) {
        let id = ids.get(token);
        if (id === undefined) {
          id = ids.size;
          ids.set(token, id);
        }
        tf.set(id, (tf.get(id) ?? 0) + 1);
      }
      return tf;
    });
    const offsets = new Int32Array(ids.size + 1);
    for (const tf of lists) for (const id of tf.keys()) offsets[id + 1] = (offsets[id + 1] as number) + 1;
    for (let t = 0; t < ids.size; t++) offsets[t + 1] = (offsets[t + 1] as number) + (offsets[t] as number);
    const fill = offsets.slice(0, ids.size);
    const docs = new Int32Array(offsets[ids.size] as number);
    const counts = new Uint16Array(docs.length);
    lists.forEach((tf, doc) => {
      for (const [id, count] of tf) {
        const at = fill[id] as number;
        docs[at] = doc;
        counts[at] = Math.min(count, 65535);
        fill[id] = at + 1;
      }
    });
    return CorpusVectors.fromPostings(
      { documents: documents.length, terms: [...ids.keys()], offsets, docs, counts },
      options,
    );
  }

  /** Learns vectors from an index's postings (no token lists held: a large repository has millions). */
  static async fromPostings(matrix: TermMatrix, options: CorpusVectorsOptions = {}): Promise<CorpusVectors> {
    const maxTerms = options.maxTerms ?? 10_000;
    const { alive } = matrix;
    let n = 0;
    for (let d = 0; d < matrix.documents; d++) if (!alive || alive[d]) n++;
    // Vocabulary: terms in at most half of the documents, the most frequent first; in a large corpus only
    // terms seen twice or more (a term of one document relates it to nothing), in a small one every term.
    const minCount = n < SMALL_CORPUS ? 1 : 2;
    const df = (t: number) => {
      let count = 0;
      for (let p = matrix.offsets[t] as number; p < (matrix.offsets[t + 1] as number); p++)
        if (!alive || alive[matrix.docs[p] as number]) count++;
      return count;
    };
    const kept = matrix.terms
      .map((_, t) => [t, df(t)] as const)
      .filter(([, count]) => count >= minCount && count <= Math.max(2, n / 2))
      .sort((a, b) => b[1] - a[1])
      .slice(0, maxTerms);
    const vocabulary = new Map(kept.map(([t], i) => [matrix.terms[t] as string, i]));
    const idf = Float64Array.from(kept, ([, count]) => Math.log(n / count));
    const terms = vocabulary.size;
    const k = Math.max(1, Math.min(options.dimensions ?? 64, terms, n));

    // The sparse matrix, term-major, vocabulary terms only: log(1 + tf) × idf, each document's row unit length.
    const colStart = new Int32Array(terms + 1);
    kept.forEach(([t], col) => {
      let live = 0;
      for (let p = matrix.offsets[t] as number; p < (matrix.offsets[t + 1] as number); p++)
        if (!alive || alive[matrix.docs[p] as number]) live++;
      colStart[col + 1] = (colStart[col] as number) + live;
    });
    const rows = new Int32Array(colStart[terms] as number);
    const value = new Float64Array(rows.length);
    const norms = new Float64Array(matrix.documents);
    kept.forEach(([t], col) => {
      let at = colStart[col] as number;
      for (let p = matrix.offsets[t] as number; p < (matrix.offsets[t + 1] as number); p++) {
        const doc = matrix.docs[p] as number;
        if (alive && !alive[doc]) continue;
        const v = Math.log1p(matrix.counts[p] as number) * (idf[col] as number);
        rows[at] = doc;
        value[at++] = v;
        norms[doc] = (norms[doc] as number) + v * v;
      }
    });
    for (let d = 0; d < norms.length; d++) norms[d] = Math.sqrt(norms[d] as number) || 1;
    for (let p = 0; p < rows.length; p++)
      value[p] = (value[p] as number) / (norms[rows[p] as number] as number);
    await yieldToLoop();

    // The basis is learned on the documents (or an even sample of them): rowOf maps a document to its row there.
    const rowOf = new Int32Array(matrix.documents).fill(-1);
    let sampled = 0;
    const every = n > SAMPLE ? n / SAMPLE : 1;
    let nextPick = 0;
    let seen = 0;
    for (let d = 0; d < matrix.documents; d++) {
      if (alive && !alive[d]) continue;
      if (seen++ >= nextPick) {
        rowOf[d] = sampled++;
        nextPick += every;
      }
    }
    const sample = sampleMatrices({ colStart, rows, value, rowOf, rowCount: sampled });
    // One WebAssembly memory for every pass (a fresh one each left hundreds of MB to the garbage collector).
    const kernel = new SparseDense();
    const multiplySparse = (x: SparseRows, m: Float32Array, width: number) =>
      kernel.multiply(x, m, width).slice();

    // Randomized range finder: Y = X Ω, then (X Xᵀ)^q Y, orthonormalised after each pass.
    const width = Math.min(k + 8, sampled, terms);
    let random = 12345;
    const next = () => {
      random = (random * 1103515245 + 12345) & 0x7fffffff;
      return random / 0x7fffffff - 0.5;
    };
    let omega: Float32Array = new Float32Array(terms * width).map(next);
    await yieldToLoop();
    let y = multiplySparse(sample.byRow, omega, width);
    // Power passes sharpen the subspace; Y is orthonormalised once, after them: with two passes the weakest
    // kept direction shrinks by (σk/σ1)^5 at most, far inside float64's precision, and Gram-Schmidt over tens of
    // thousands of rows is the most expensive step.
    for (let i = 0; i < Math.min(3, options.powerIterations ?? 2); i++) {
      omega = multiplySparse(sample.byTerm, y, width);
      await yieldToLoop();
      y = multiplySparse(sample.byRow, omega, width);
    }
    const q = Float64Array.from(y);
    orthonormalise(q, sampled, width);
    await yieldToLoop();
    // B = Qᵀ X (width × terms), kept as its transpose (terms × width).
    const bt = multiplySparse(sample.byTerm, Float32Array.from(q), width);
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
    // A document's vector is its row of X V (the same weights encode() gives a new text), unit length; every
    // document is projected, sampled or not.
    // Accumulated in float32 (the rows are normalised right after; float64 would double the largest array here).
    const everyRow = new Int32Array(matrix.documents).map((_, d) => d);
    const all = byRow({ colStart, rows, value, rowOf: everyRow, rowCount: matrix.documents });
    const out = multiplySparse(all, Float32Array.from(basis), k);
    for (let d = 0; d < matrix.documents; d++) {
      let norm = 0;
      for (let j = 0; j < k; j++) norm += (out[d * k + j] as number) ** 2;
      norm = Math.sqrt(norm) || 1;
      for (let j = 0; j < k; j++) out[d * k + j] = (out[d * k + j] as number) / norm;
    }
    return new CorpusVectors(vocabulary, idf, basis, k, out);
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
