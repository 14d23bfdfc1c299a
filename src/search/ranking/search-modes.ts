// How a search's mode turns raw scores into the one array the ranking stack ranks, and find_related's query: the
// one owner for the in-memory index (code-index/) and the shared store's (stores/pg/), so both rank alike.
import type { Chunk } from '../chunks/chunker.js';
import { tokenize } from '../lexical/tokenize.js';
import { mix } from './ranking.js';

/** Search modes, the default first. Without vectors, `semantic` and `hybrid` rank as `bm25` does. */
export const SEARCH_MODES = ['hybrid', 'semantic', 'bm25'] as const;
/** How a search ranks: `hybrid` (bm25 and cosine mixed), `semantic` (cosine of vectors) or `bm25` (keywords). */
export type SearchMode = (typeof SEARCH_MODES)[number];

/** The scores a mode needs, each computed only when asked for. */
export interface ModeScores {
  /** bm25 over the query's words. */
  lexical(): Float64Array;
  /** Cosines of the query's vector with every chunk's; undefined without vectors (or none for the query's words). */
  semantic(): Float64Array | undefined;
  /** In `hybrid`: the cosine's weight next to bm25's 1 (each divided by its best first). */
  weight: number;
}

/**
 * The raw scores of a search in `mode`: `bm25` the lexical ones; `semantic` the cosines; `hybrid` both mixed
 * ({@link mix}). Without cosines every mode ranks as `bm25` (asked for before the lexical scores, so these may
 * depend on what the cosines found).
 */
export function scoresFor(mode: SearchMode, scores: ModeScores): Float64Array {
  if (mode === 'bm25') return scores.lexical();
  const semantic = scores.semantic();
  if (!semantic) return scores.lexical();
  return mode === 'semantic' ? semantic : mix(scores.lexical(), semantic, scores.weight);
}

/** How many of a chunk's words make find_related's query. */
const RELATED_TERMS = 32;

/**
 * find_related's query for a chunk: its symbols' and code's most distinctive words (count damped by log, times
 * idf), the best weighing 1.
 */
export function relatedTerms(chunk: Chunk, idf: (term: string) => number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokenize(`${chunk.symbols.join(' ')} ${chunk.content}`))
    counts.set(token, (counts.get(token) ?? 0) + 1);
  const weighted = [...counts.entries()]
    .map(([term, count]) => [term, Math.log(1 + count) * idf(term)] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, RELATED_TERMS);
  const top = weighted[0]?.[1] ?? 1;
  return new Map(weighted.map(([term, weight]) => [term, weight / top]));
}
