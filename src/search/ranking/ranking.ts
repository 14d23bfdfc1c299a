// Ranking signals: what a path says about a file (test, build output, legacy, example, prose), the weights of
// the signals, how bm25 and cosine scores mix, and the ranking stack that applies them to raw scores.

import type { Chunk } from '../chunks/chunker.js';
import { topK } from '../lexical/bm25.js';
import { tokenize } from '../lexical/tokenize.js';

/**
 * How much each ranking signal moves a score: `definition` and `path` are boosts (0 = off), the rest are
 * factors (1 = off). Measured on bench/search-quality.ts; pass overrides to {@link CodeIndex.search} to
 * measure them again.
 */
export interface RankingWeights {
  /** A chunk that defines a queried symbol: × (1 + definition). */
  definition: number;
  /** Query words in the chunk's path: × (1 + path × share of query words found there). */
  path: number;
  /** Tests, specs and fixtures, unless the query asks for tests. */
  test: number;
  /** `.d.ts` declaration files. */
  declaration: number;
  /** The n-th further chunk of a file already in the results: × sameFile^n. */
  sameFile: number;
  /** Build output (`.js`, `.cjs`, `.d.ts` …) of a TypeScript source that is indexed too. */
  twin: number;
  /** Legacy code: `legacy/`, `compat`, `deprecated` paths, and an older `vN/` beside a newer one. */
  legacy: number;
  /** In `hybrid`: the weight of the cosine score (each score divided by its best first) next to bm25's 1. */
  semantic: number;
  /** For a sentence of plain words (`isProse`: three or more, none written as code): × `semantic`. 1 = as others. */
  proseSemantic: number;
  /** Examples, demos and benchmarks, unless the query asks for them. */
  examples: number;
  /** Prose (Markdown, text), unless the query asks for docs: agents search for code. */
  docs: number;
  /**
   * File-level evidence: a file's best chunk gains `fileEvidence` × the scores of its other candidate chunks
   * (halving each further one), so a file matching in many places is not outranked by one small chunk of a
   * neighbour. 0 = off.
   */
  fileEvidence: number;
  /**
   * File-level evidence for a question (`how …`, `where …`, `why …`, `what …`) instead of `fileEvidence`: a question
   * about how something works asks for the file that does it, which matches it in many places (measured: the
   * architecture queries of bench/search-quality.ts, all questions, 0.789 → 0.801; statements lose with it).
   */
  questionEvidence: number;
  /** Every word of the file's name (without extension) in the query: × (1 + fileName). 0 = off. */
  fileName: number;
  /**
   * A plain-English query's bm25 also scores the code tokens its words translate to (vectors/translation.ts), each
   * at `translation` × its summed probability, at most 1. 0 = off.
   */
  translation: number;
  /** A query word's learned abbreviations in code (`context` → ctx; vectors/translation.ts) score at this weight. 0 = off. */
  abbreviation: number;
}

/** The weights search uses unless told otherwise. */
export const DEFAULT_RANKING: Readonly<RankingWeights> = {
  definition: 0.6,
  path: 0.8,
  test: 0.6,
  declaration: 0.7,
  sameFile: 0.7,
  twin: 0.5,
  docs: 0.4,
  examples: 0.6,
  semantic: 0.5,
  proseSemantic: 1,
  legacy: 0.6,
  fileEvidence: 0.1,
  questionEvidence: 0.3,
  fileName: 0.3,
  translation: 0,
  abbreviation: 0,
};

export const TEST_PATH = /(^|\/)(tests?|__tests__|spec|specs|e2e|fixtures?)(\/|$)|[._-](test|spec)\.[a-z]+$/i;

/** A query put as a question about how or where something is done. */
const QUESTION = /^\s*(how|where|why|what)\b/i;

export const EXAMPLE_PATH = /(^|\/)(examples?|demos?|samples?|benchmarks?|bench)(\/|$)/i;
export const PROSE = new Set(['markdown', 'text']);
export const DECLARATION = /\.d\.[cm]?ts$/;
const OUTPUT = /(\.d)?\.[cm]?[jt]s$/;
const SOURCE = /\.tsx?$/;

/**
 * Files that are build output of a TypeScript source in the same tree: `X.js`, `X.cjs`, `X.mjs`, `X.d.ts`, …
 * next to `X.ts`, or under another root (`v4/core/schemas.js` for `src/v4/core/schemas.ts`), as packages
 * that ship their sources lay them out.
 */
export function buildOutputs(paths: Iterable<string>): Set<string> {
  const all = [...paths];
  const sources = new Set<string>();
  for (const path of all) {
    if (!SOURCE.test(path) || DECLARATION.test(path)) continue;
    // Every suffix of the source's stem at a '/' (src/v4/core/schemas → v4/core/schemas → core/schemas …),
    // and the stem without its `src` directory (pkg/src/index → pkg/index, for a package inside the tree).
    const parts = path.replace(SOURCE, '').split('/');
    for (let i = 0; i < parts.length; i++) sources.add(parts.slice(i).join('/'));
    const src = parts.indexOf('src');
    if (src > 0) sources.add(parts.filter((_, i) => i !== src).join('/'));
  }
  return new Set(
    all.filter(
      (path) =>
        OUTPUT.test(path) &&
        (DECLARATION.test(path) || !SOURCE.test(path)) &&
        sources.has(path.replace(OUTPUT, '')),
    ),
  );
}

/** A defined name as queries may spell it: a query for `ZodType` finds `$ZodType` (and `_cache`, `cache`). */
export const bareName = (name: string) => name.replace(/^[$_]+/, '').toLowerCase();

const LEGACY = /(^|\/)(legacy|deprecated)(\/|[._-])|(^|\/)compat(\/|\.[a-z]+$)/i;
const VERSION_DIR = /^v(\d+)$/;

/**
 * Legacy code by its path: a `legacy`, `deprecated` or `compat` directory or file, and a version directory
 * (`v3/`) that has a newer sibling (`v4/`): zod keeps its v3 API beside v4.
 */
export function legacyFiles(paths: Iterable<string>): Set<string> {
  const all = [...paths];
  const newest = new Map<string, number>(); // parent dir → highest vN under it
  for (const path of all) {
    const parts = path.split('/');
    parts.pop();
    parts.forEach((part, i) => {
      const version = VERSION_DIR.exec(part);
      if (!version) return;
      const parent = parts.slice(0, i).join('/');
      newest.set(parent, Math.max(newest.get(parent) ?? 0, Number(version[1])));
    });
  }
  return new Set(
    all.filter((path) => {
      if (LEGACY.test(path)) return true;
      const parts = path.split('/');
      parts.pop();
      return parts.some((part, i) => {
        const version = VERSION_DIR.exec(part);
        return version !== null && Number(version[1]) < (newest.get(parts.slice(0, i).join('/')) ?? 0);
      });
    }),
  );
}

/** bm25 and cosine scores, each divided by its best, added (the cosine's at `weight`). */
export function mix(lexical: Float64Array, semantic: Float64Array, weight: number): Float64Array {
  // Indexed loops, not for…of: this runs over every chunk of the repository per query (238k on the JDK).
  const n = lexical.length;
  let bestLexical = 0;
  let bestSemantic = 0;
  for (let i = 0; i < n; i++) {
    const x = lexical[i] as number;
    const y = semantic[i] as number;
    if (x > bestLexical) bestLexical = x;
    if (y > bestSemantic) bestSemantic = y;
  }
  const a = 1 / (bestLexical || 1);
  const b = weight / (bestSemantic || 1);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = (lexical[i] as number) * a + (semantic[i] as number) * b;
  return out;
}

/** One result: a chunk and its score (raw: see {@link shownScores} for the score a reader sees). */
export interface SearchHit {
  chunk: Chunk;
  score: number;
}

/** What the ranking stack knows of an index: its chunks (by document number) and the paths it marks. */
export interface RankedCorpus {
  /** The chunk of a document number with a score. */
  chunkAt(doc: number): Chunk;
  /** Build output of an indexed TypeScript source ({@link buildOutputs}). */
  twins: ReadonlySet<string>;
  /** Legacy code ({@link legacyFiles}). */
  legacy: ReadonlySet<string>;
  /** A document left out of the results (find_related's own chunk). */
  exclude?: number | undefined;
}

/**
 * The best `limit` hits from raw scores (bm25, cosine or mixed, one per chunk): each candidate's score moved by
 * the ranking signals the query does not ask to lift, then every further chunk of a file already ranked
 * counting a little less.
 */
export function rankChunks(
  raw: Float64Array,
  query: string,
  limit: number,
  corpus: RankedCorpus,
  weights: Readonly<RankingWeights>,
): SearchHit[] {
  const queryTokens = new Set(tokenize(query));
  const identifiers = new Set(
    (query.match(/[A-Za-z_$][\w$]*/g) ?? [])
      .filter((w) => /[a-z][A-Z]|_|^[A-Z]/.test(w) || queryTokens.size <= 2)
      .map((w) => w.toLowerCase()),
  );
  const nameWords = fileWords(query);
  const wantsTests = /\btests?\b|\bspec\b/i.test(query);
  const wantsExamples = /\b(examples?|demos?|samples?|bench\w*)\b/i.test(query);
  const wantsLegacy = /\b(legacy|compat\w*|deprecated|old|v\d+)\b/i.test(query);
  const wantsDocs = /\b(docs?|documentation|readme|changelog|guide|history)\b/i.test(query);
  const candidates = topK(raw, Math.max(limit * 10, 50));
  const scored = candidates.flatMap(({ doc, score }) => {
    if (doc === corpus.exclude) return [];
    const chunk = corpus.chunkAt(doc);
    let value = score;
    if (chunk.symbols.some((s) => identifiers.has(s.toLowerCase()) || identifiers.has(bareName(s))))
      value *= 1 + weights.definition;
    const pathTokens = new Set(tokenize(chunk.path));
    let pathHits = 0;
    for (const token of queryTokens) if (pathTokens.has(token)) pathHits++;
    if (queryTokens.size > 0) value *= 1 + (weights.path * pathHits) / queryTokens.size;
    if (!wantsTests && TEST_PATH.test(chunk.path)) value *= weights.test;
    if (!wantsLegacy && corpus.legacy.has(chunk.path)) value *= weights.legacy;
    if (!wantsExamples && EXAMPLE_PATH.test(chunk.path)) value *= weights.examples;
    if (DECLARATION.test(chunk.path)) value *= weights.declaration;
    if (corpus.twins.has(chunk.path)) value *= weights.twin;
    if (!wantsDocs && PROSE.has(chunk.language)) value *= weights.docs;
    if (weights.fileName > 0 && nameInQuery(chunk.path, nameWords)) value *= 1 + weights.fileName;
    return [{ chunk, score: value }];
  });
  scored.sort((a, b) => b.score - a.score);
  const evidence = QUESTION.test(query) ? weights.questionEvidence : weights.fileEvidence;
  if (evidence > 0) addFileEvidence(scored, evidence);
  // File diversity: the n-th chunk of a file already shown counts sameFile^n of its score.
  const seen = new Map<string, number>();
  const diverse = scored.map((hit) => {
    const n = seen.get(hit.chunk.path) ?? 0;
    seen.set(hit.chunk.path, n + 1);
    return { chunk: hit.chunk, score: hit.score * weights.sameFile ** n };
  });
  diverse.sort((a, b) => b.score - a.score);
  // A hit under 1/2000 of the best shows as score 0.000: a near-zero cosine, not an answer (a long-running
  // server padded results with its data files that way).
  const floor = (diverse[0]?.score ?? 0) * NEGLIGIBLE;
  return diverse.slice(0, limit).filter((hit) => hit.score > floor);
}

/**
 * The words a query could name a file with: each identifier whole (`ProgressBar` → progressbar,
 * `rotating_file_sink` → rotatingfilesink) and each plain word's token (`rotating` → rotat). The parts of an
 * identifier are not among them: a query for `ParseStatus` does not name `status.ts`.
 */
function fileWords(query: string): Set<string> {
  const out = new Set<string>();
  for (const word of query.match(/[\p{L}\p{N}_$-]+/gu) ?? []) {
    out.add(word.replace(/[-_$]/g, '').toLowerCase());
    const tokens = tokenize(word);
    if (tokens.length === 1) out.add(tokens[0] as string);
  }
  return out;
}

/** Whether a file's name (`rotating_file_sink.h`, `ProgressBar.php`) is what the query's words say. */
function nameInQuery(path: string, words: ReadonlySet<string>): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '');
  if (words.has(base.replace(/[-_$.]/g, '').toLowerCase())) return true;
  const parts = base.split(/[-_.]+|(?<=[a-z0-9])(?=[A-Z])/).filter(Boolean);
  return parts.length > 1 && parts.every((part) => words.has(tokenize(part)[0] ?? part.toLowerCase()));
}

/**
 * Lifts each file's best hit by `weight` × its other hits' scores, the n-th further one halved n - 1 times
 * (hits sorted best first; re-sorted here).
 */
function addFileEvidence(hits: SearchHit[], weight: number): void {
  const best = new Map<string, SearchHit>();
  const extra = new Map<string, number>();
  const count = new Map<string, number>();
  for (const hit of hits) {
    const path = hit.chunk.path;
    const n = count.get(path) ?? 0;
    count.set(path, n + 1);
    if (n === 0) best.set(path, hit);
    else extra.set(path, (extra.get(path) ?? 0) + hit.score / 2 ** (n - 1));
  }
  for (const [path, sum] of extra) {
    const hit = best.get(path) as SearchHit;
    hit.score += weight * sum;
  }
  hits.sort((a, b) => b.score - a.score);
}

/** The share of the best hit's score below which a hit is left out. */
const NEGLIGIBLE = 0.0005;
