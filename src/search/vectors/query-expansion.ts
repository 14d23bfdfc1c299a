import { tokenize } from '../lexical/tokenize.js';
import type { StaticModel } from './static-model.js';

/** How many terms a query gains, and what each counts at most against a query word's 1. */
const EXPANSION = { terms: 10, weight: 0.5 };

/**
 * A query's bm25 terms with the indexed terms a static model puts nearest the whole query added at low weight
 * (its cosine × 0.5), so "pause for a while" also scores `sleep` and `timeout` — code that shares no word with the
 * English. Measured on bench/search-quality.ts's natural-language set (docs/search.md).
 */
export function expandQuery(
  model: StaticModel,
  query: string,
  vector: Float32Array,
  indexed: (term: string) => boolean,
): Map<string, number> {
  const terms = new Map<string, number>();
  for (const term of tokenize(query)) terms.set(term, 1);
  const near = model.nearest(vector, EXPANSION.terms, (token) => !terms.has(token) && indexed(token));
  for (const [term, cosine] of near) if (cosine > 0) terms.set(term, EXPANSION.weight * cosine);
  return terms;
}

/** Whether a query is a sentence of plain words (three or more, none written as an identifier). */
export function isProse(query: string): boolean {
  const words = query.match(/[\p{L}\p{N}_$.:]+/gu) ?? [];
  return words.length >= 3 && words.every((word) => /^\p{L}[\p{Ll}]*[.:]?$/u.test(word));
}
