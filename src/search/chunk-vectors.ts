import type { Chunk } from './chunker.js';
import { CorpusVectors } from './corpus-vectors.js';
import { tokenize } from './tokenize.js';

/** Anything that turns text into a unit vector: a static model, or vectors learned from the corpus. */
export interface Embedder {
  encode(text: string): Float32Array;
}

/**
 * An index's vectors, shared with the indexes derived from it as files change: what encodes text (once
 * learned) and the vectors of chunks already encoded.
 */
export interface VectorState {
  embedder?: Embedder;
  known: WeakMap<Chunk, Float32Array>;
  /** Settles when vectors learned in the background are there (or failed: then bm25 only). */
  ready: Promise<void>;
}

/** Vectors that need no learning: a static model's, or none at all. */
export const settledVectors = (embedder?: Embedder): VectorState => ({
  ...(embedder ? { embedder } : {}),
  known: new WeakMap(),
  ready: Promise.resolve(),
});

/** Above this many chunks, learning vectors would take minutes and gigabytes: bm25 only. */
export const MAX_VECTOR_CHUNKS = 150_000;

/**
 * Starts learning vectors from the chunks themselves (latent semantic analysis over their tokens); the
 * state's `ready` settles when they are there. A failure is reported and leaves the index on bm25.
 */
export function learnVectors(
  chunks: readonly Chunk[],
  tokens: readonly (readonly string[])[],
  onError: (error: Error) => void,
): VectorState {
  const vectors: VectorState = { known: new WeakMap(), ready: Promise.resolve() };
  vectors.ready = CorpusVectors.build(tokens).then((corpus) => {
    for (const [i, chunk] of chunks.entries()) vectors.known.set(chunk, corpus.documents[i] as Float32Array);
    vectors.embedder = { encode: (text: string) => corpus.encode(tokenize(text)) };
  }, onError);
  return vectors;
}

/** The chunks' vectors in one contiguous matrix, so a query's cosines are one pass. */
export interface VectorMatrix {
  for: Embedder;
  data: Float32Array;
  dimensions: number;
}

/** What a chunk's vector is made of: its names, path words and code. */
const vectorText = (chunk: Chunk) => `${chunk.symbols.join(' ')} ${chunk.path} ${chunk.content}`;

/** The matrix of these chunks' vectors; vectors seen before (the corpus build, an earlier index) are reused. */
export function vectorMatrix(
  chunks: readonly Chunk[],
  vectors: VectorState,
  embedder: Embedder,
): VectorMatrix {
  const rows = chunks.map((chunk) => {
    let vector = vectors.known.get(chunk);
    if (!vector) {
      vector = embedder.encode(vectorText(chunk));
      vectors.known.set(chunk, vector);
    }
    return vector;
  });
  const dimensions = rows[0]?.length ?? 0;
  const data = new Float32Array(rows.length * dimensions);
  for (const [i, row] of rows.entries()) data.set(row, i * dimensions);
  return { for: embedder, data, dimensions };
}

/** Each row's cosine with a unit query vector, negative ones as zero. */
export function cosines(matrix: VectorMatrix | undefined, rows: number, query: Float32Array): Float64Array {
  const { data, dimensions } = matrix ?? { data: new Float32Array(0), dimensions: 0 };
  const scores = new Float64Array(rows);
  for (let i = 0; i < rows; i++) {
    let dot = 0;
    const base = i * dimensions;
    for (let d = 0; d < dimensions; d++) dot += (data[base + d] as number) * (query[d] as number);
    scores[i] = dot > 0 ? dot : 0;
  }
  return scores;
}
