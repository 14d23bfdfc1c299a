// What the search benches rank with besides the modes under test, and how they read a ranking as files.
//
// The baseline every mode must beat: a plain BM25 (k1 1.2, b 0.75) over fixed 50-line windows of every file —
// no definitions, no file evidence, no path or name fields, no synonyms, no vectors. It shares only mcpkit's
// tokenizer (code-aware words, stopwords, light suffix folding), so what separates the two is chunking and ranking.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { CodeIndex, SearchMode } from '../src/search/code-index/code-index.js';
import { tokenize } from '../src/search/lexical/tokenize.js';
import type { RankingWeights } from '../src/search/ranking/ranking.js';

/** Files in the order an index's chunks rank them (first occurrence), at most `k`. */
export function rankedFiles(
  index: CodeIndex,
  query: string,
  mode: SearchMode,
  ranking: Partial<RankingWeights> | undefined,
  k: number,
): string[] {
  const files: string[] = [];
  for (const hit of index.search(query, 60, mode, ranking)) {
    if (!files.includes(hit.chunk.path)) files.push(hit.chunk.path);
    if (files.length === k) break;
  }
  return files;
}

const WINDOW = 50;
const K1 = 1.2;
const B = 0.75;
const SKIPPED = /^(node_modules|\.git|\.mcpkit)$/;
const CODE =
  /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|java|kt|swift|c|h|cc|cpp|hpp|go|rs|py|rb|php|cs|lua|sh|bash|scala|ex|exs|hs|zig)$/;

/** A BM25 index of a tree's code files cut in 50-line windows; {@link WindowBm25.files} ranks files. */
export class WindowBm25 {
  private readonly postings = new Map<string, Array<[number, number]>>();
  private readonly lengths: number[] = [];
  private readonly fileOf: string[] = [];
  private averageLength = 0;

  constructor(root: string) {
    for (const file of walk(root)) {
      const lines = readFileSync(join(root, file), 'utf8').split('\n');
      for (let start = 0; start < lines.length; start += WINDOW) {
        const doc = this.fileOf.length;
        this.fileOf.push(file);
        const tokens = tokenize(lines.slice(start, start + WINDOW).join('\n'));
        this.lengths.push(tokens.length);
        const counts = new Map<string, number>();
        for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
        for (const [t, tf] of counts) {
          const list = this.postings.get(t);
          if (list) list.push([doc, tf]);
          else this.postings.set(t, [[doc, tf]]);
        }
      }
    }
    this.averageLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, this.lengths.length);
  }

  /** Files in the order their best window ranks, at most `k`. */
  files(query: string, k: number): string[] {
    const scores = new Map<number, number>();
    const n = this.lengths.length;
    for (const term of new Set(tokenize(query))) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const [doc, tf] of list) {
        const norm = K1 * (1 - B + (B * (this.lengths[doc] as number)) / this.averageLength);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (K1 + 1)) / (tf + norm));
      }
    }
    const out: string[] = [];
    for (const [doc] of [...scores].sort((a, b) => b[1] - a[1])) {
      const file = this.fileOf[doc] as string;
      if (!out.includes(file)) out.push(file);
      if (out.length === k) break;
    }
    return out;
  }
}

function walk(root: string, dir = root, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    if (SKIPPED.test(name)) continue;
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isDirectory()) walk(root, path, out);
    else if (CODE.test(name) && !name.endsWith('.d.ts') && stat.size < 1 << 20)
      out.push(relative(root, path));
  }
  return out;
}
