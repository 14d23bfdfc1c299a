// What a chunk puts in the store's postings, and how a query scores candidates from them: the same BM25F as the
// in-memory index (src/search/bm25.ts, fields as CodeIndex weighs them), so both rank alike.
import type { Chunk } from '../chunker.js';
import { tokenize } from '../tokenize.js';

/** BM25's term-frequency saturation and length normalisation, as {@link Bm25Index}'s defaults. */
export const K1 = 1.2;
export const B = 0.75;

/** One chunk's terms with their field-weighted counts, and its field-weighted length. */
export interface ChunkPostings {
  terms: string[];
  tfs: number[];
  length: number;
}

/**
 * A chunk's postings: content (weight 1), symbol names (3) and path (2), as CodeIndex indexes a chunk; a weighted
 * count is capped at 65,535 as the in-memory postings' Uint16 is.
 */
export function chunkPostings(chunk: Chunk, pathTokens: readonly string[]): ChunkPostings {
  const counts = new Map<string, number>();
  let length = 0;
  const fields: [readonly string[], number][] = [
    [tokenize(chunk.content), 1],
    [tokenize(chunk.symbols.join(' ')), 3],
    [pathTokens, 2],
  ];
  for (const [tokens, weight] of fields)
    for (const term of tokens) {
      counts.set(term, (counts.get(term) ?? 0) + weight);
      length += weight;
    }
  const terms = [...counts.keys()];
  return { terms, tfs: terms.map((term) => Math.min(counts.get(term) as number, 65535)), length };
}

/** What scoring needs of the repository: live chunks, their summed length, and each query term's document frequency. */
export interface CorpusStats {
  docs: number;
  totalLength: number;
  df: ReadonlyMap<string, number>;
}

/**
 * A candidate's BM25 score, computed exactly as {@link Bm25Index.scoreTerms} computes it (same operations in the
 * same order, the length as a float32), so a ranking from the store equals the in-memory one to the bit.
 */
export function scoreCandidate(
  terms: ReadonlyMap<string, number>,
  tfOf: ReadonlyMap<string, number>,
  length: number,
  stats: CorpusStats,
): number {
  const averageLength = stats.docs > 0 ? stats.totalLength / stats.docs || 1 : 1;
  const len = Math.fround(length);
  let score = 0;
  for (const [term, weight] of terms) {
    const tf = tfOf.get(term);
    const df = stats.df.get(term) ?? 0;
    if (tf === undefined || df === 0) continue;
    const idf = Math.log(1 + (stats.docs - df + 0.5) / (df + 0.5)) * weight;
    const norm = K1 * (1 - B + (B * len) / averageLength);
    score = score + (idf * (tf * (K1 + 1))) / (tf + norm);
  }
  return score;
}
