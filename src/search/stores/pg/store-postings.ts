// What a chunk puts in the store's postings: the same BM25F fields and weights as the in-memory index (CodeIndex over
// src/search/lexical/bm25.ts), so both rank alike.
import type { Chunk } from '../../chunks/chunker.js';
import { tokenize } from '../../lexical/tokenize.js';

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
