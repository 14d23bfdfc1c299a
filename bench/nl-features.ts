// EXPERIMENT (issue 32): per query, the candidate chunks of every mode with features a learned reranker could use,
// written as JSON lines for an offline fit (FEATURES=FILE tsx bench/search-nl.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Chunk } from '../src/search/chunks/chunker.js';
import type { CodeIndex, SearchMode } from '../src/search/code-index/code-index.js';
import { tokenize } from '../src/search/lexical/tokenize.js';
import type { RankingWeights } from '../src/search/ranking/ranking.js';

export const FEATURE_NAMES = [
  'bm25',
  'hybrid',
  'hybridModel',
  'bm25Self',
  'bm25Translation',
  'cosine',
  'cosineModel',
  'coverage',
  'proximity',
  'fileCoverage',
  'symbolOverlap',
  'logLines',
  'rankBm25',
  'rankHybrid',
];

const key = (c: Chunk) => `${c.path}:${c.startLine}`;

export function queryFeatures(
  corpus: CodeIndex,
  withModel: CodeIndex,
  dir: string,
  query: string,
  fileTokens: Map<string, Set<string>>,
): Array<{ path: string; f: number[] }> {
  const idf = (t: string) =>
    (corpus as unknown as { docs: { bm25: { idf(t: string): number } } }).docs.bm25.idf(t) || 0;
  const runs: Array<[CodeIndex, SearchMode, Partial<RankingWeights>]> = [
    [corpus, 'bm25', {}],
    [corpus, 'hybrid', {}],
    [withModel, 'hybrid', {}],
    [corpus, 'bm25', { selfWeight: 0.25 }],
    [corpus, 'bm25', { translation: 2 }],
    [corpus, 'semantic', {}],
    [withModel, 'semantic', {}],
  ];
  const chunks = new Map<string, Chunk>();
  const scores = runs.map(([index, mode, w], r) => {
    const hits = index.search(query, r < 3 ? 60 : 40, mode, w);
    const best = hits[0]?.score || 1;
    const out = new Map<string, [number, number]>();
    hits.forEach((h, i) => {
      if (r < 3 || r === 3) chunks.set(key(h.chunk), h.chunk);
      out.set(key(h.chunk), [h.score / best, i]);
    });
    return out;
  });
  const terms = [...new Set(tokenize(query))];
  const weights = terms.map(idf);
  const total = weights.reduce((a, b) => a + b, 0) || 1;
  const rows: Array<{ path: string; f: number[] }> = [];
  for (const [k, chunk] of chunks) {
    const tokens = tokenize(chunk.content);
    const present = new Set(tokens);
    const coverage = terms.reduce((s, t, i) => s + (present.has(t) ? (weights[i] as number) : 0), 0) / total;
    // The most query weight within 24 consecutive tokens.
    let proximity = 0;
    const W = 24;
    const last = new Map<string, number>();
    for (let i = 0; i < tokens.length; i++) {
      last.set(tokens[i] as string, i);
      let s = 0;
      terms.forEach((t, j) => {
        const at = last.get(t);
        if (at !== undefined && i - at < W) s += weights[j] as number;
      });
      if (s > proximity) proximity = s;
    }
    proximity /= total;
    let file = fileTokens.get(chunk.path);
    if (!file) {
      file = new Set(tokenize(readFileSync(join(dir, chunk.path), 'utf8')));
      fileTokens.set(chunk.path, file);
    }
    const fileCoverage = terms.reduce((s, t, i) => s + (file.has(t) ? (weights[i] as number) : 0), 0) / total;
    const symbols = new Set(tokenize(chunk.symbols.join(' ')));
    const symbolOverlap =
      terms.reduce((s, t, i) => s + (symbols.has(t) ? (weights[i] as number) : 0), 0) / total;
    const value = (r: number) => scores[r]?.get(k)?.[0] ?? 0;
    const rank = (r: number) => {
      const at = scores[r]?.get(k)?.[1];
      return at === undefined ? 0 : 1 / (at + 1);
    };
    rows.push({
      path: chunk.path,
      f: [
        value(0),
        value(1),
        value(2),
        value(3),
        value(4),
        value(5),
        value(6),
        coverage,
        proximity,
        fileCoverage,
        symbolOverlap,
        Math.log(1 + chunk.endLine - chunk.startLine),
        rank(0),
        rank(1),
      ].map((x) => Math.round(x * 1e4) / 1e4),
    });
  }
  return rows;
}
