// How search results are shown: as text for an agent (the search tools, `mcpkit query`) and as JSON for programs
// (`mcpkit query --json`), both with the same score.
import type { Chunk } from '../chunks/chunker.js';
import type { SearchHit } from './ranking.js';

/**
 * Each hit's score as shown, in text and JSON alike: divided by the best hit's of the same answer (the first
 * shows 1), rounded to 3 decimals. A raw score ({@link SearchHit.score}) depends on the mode and on the
 * repository's word statistics, so it means nothing on its own; relative to the best hit it does.
 */
export function shownScores(hits: readonly SearchHit[]): number[] {
  const best = hits[0]?.score || 1;
  return hits.map(({ score }) => Math.round((score / best) * 1000) / 1000);
}

/** Results as text for an agent: a header, then numbered hits with path:lines, shown score and the code. */
export function formatResults(header: string, hits: readonly SearchHit[]): string {
  const scores = shownScores(hits);
  const blocks = hits.map(({ chunk }, i) => {
    const fence = chunk.content.includes('```') ? '````' : '```';
    const language = chunk.language === 'text' ? '' : chunk.language;
    const where = `${chunk.path}:${chunk.startLine}-${chunk.endLine}`;
    return `${i + 1}. ${where} (score=${(scores[i] as number).toFixed(3)})\n${fence}${language}\n${chunk.content}\n${fence}`;
  });
  return `${header}\n\n${blocks.join('\n\n')}`;
}

/** One result as JSON: the chunk and its shown score. */
export type ResultJson = Chunk & { score: number };

/** Results as JSON for programs: the query and each chunk with its shown score (as {@link formatResults}). */
export function resultsJson(
  query: string,
  hits: readonly SearchHit[],
): { query: string; results: ResultJson[] } {
  const scores = shownScores(hits);
  return { query, results: hits.map(({ chunk }, i) => ({ ...chunk, score: scores[i] as number })) };
}
