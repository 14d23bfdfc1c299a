// Trains the English → code translation table shipped in models/code-words/translation.json: for each English
// word of doc comments, the code tokens written under it, with IBM Model 1 probabilities t(code | english), as
// in the translation models of the code-search literature. A search expands a plain-English query with the
// indexed code tokens its words translate to (src/search/vectors/translation.ts).
//
//   tsx scripts/train-translation.ts [OUT_FILE]        (2 cores: about a minute after mining)
//   DEFINITIONS_ONLY=1: pairs only from comments above a definition (181k instead of 254k; issue 32, fourth round)
//
// Data: the (doc comment, code) pairs of scripts/mine-pairs.ts (the same the static model learns from; semble's
// repositories and every benchmark tree left out). The English side is the comment's first sentence (what a person
// types), else the whole comment; the code side is the set of tokens of the ~30 lines under it. Method: candidates
// per English word from co-occurrence (a count-weighted PMI, the best 64 code tokens seen with it in 3 or more
// pairs), then 5 rounds of Model 1's EM over those candidates, each code token of a pair explained by one of the
// pair's English words or by a fixed background (NULL: the share of pairs whose code holds the token), so tokens
// every piece of code has (`return`, `this`) go to NULL and a word keeps the tokens that come with it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sentenceOf } from '../bench/nl-queries.js';
import { tokenize } from '../src/search/lexical/tokenize.js';
import { minePairs } from './mine-pairs.js';

const started = performance.now();
const project = fileURLToPath(new URL('..', import.meta.url));
const out = process.argv[2] ?? join(project, 'models', 'code-words', 'translation.json');
const SETTINGS = {
  minPairs: 5,
  englishWords: 12_000,
  codeTokens: 60_000,
  candidates: 64,
  minTogether: 3,
  rounds: 5,
  keep: 8,
  minProbability: 0.03,
  maxShare: Number(process.env.MAX_SHARE ?? 0.05),
};

const { pairs, files, versions, excluded, licences } = minePairs({
  max: Number(process.env.MAX_PAIRS ?? 400_000),
  wide: process.env.NARROW !== '1',
  definitionsOnly: process.env.DEFINITIONS_ONLY === '1',
});

// Token ids: English and code vocabularies by the number of pairs that hold them.
const englishSets = pairs.map((p) => [...new Set(tokenize(sentenceOf(p.comment) ?? p.comment))].slice(0, 32));
const codeSets = pairs.map((p) => [...new Set(tokenize(p.code))].slice(0, 400));
const vocabulary = (sets: string[][], size: number) => {
  const df = new Map<string, number>();
  for (const set of sets) for (const t of set) df.set(t, (df.get(t) ?? 0) + 1);
  const kept = [...df]
    .filter(([, n]) => n >= SETTINGS.minPairs)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, size);
  return {
    ids: new Map(kept.map(([t], i) => [t, i])),
    terms: kept.map(([t]) => t),
    df: kept.map(([, n]) => n),
  };
};
const english = vocabulary(englishSets, SETTINGS.englishWords);
const code = vocabulary(codeSets, SETTINGS.codeTokens);
const E = englishSets.map((s) => Int32Array.from(s.flatMap((t) => english.ids.get(t) ?? [])));
const C = codeSets.map((s) => Int32Array.from(s.flatMap((t) => code.ids.get(t) ?? [])));
const N = pairs.length;
process.stdout.write(`${N} pairs: ${english.terms.length} English words, ${code.terms.length} code tokens\n`);

// Candidates: for each English word, the code tokens of its pairs by n × log(n N / (df_e df_c)).
const pairsOf: number[][] = english.terms.map(() => []);
E.forEach((set, p) => {
  for (const e of set) pairsOf[e]?.push(p);
});
const together = new Float32Array(code.terms.length);
const candidates: Int32Array[] = [];
const t: Float32Array[] = [];
for (let e = 0; e < english.terms.length; e++) {
  const touched: number[] = [];
  for (const p of pairsOf[e] as number[])
    for (const c of C[p] as Int32Array) {
      if (together[c] === 0) touched.push(c);
      together[c] = (together[c] as number) + 1;
    }
  const scored = touched
    .filter((c) => (together[c] as number) >= SETTINGS.minTogether)
    .map((c) => {
      const n = together[c] as number;
      return [c, n * Math.log((n * N) / ((english.df[e] as number) * (code.df[c] as number)))] as const;
    })
    // At least twice as often together as chance would put them.
    .filter(([c, s]) => s >= (together[c] as number) * Math.LN2)
    .sort((a, b) => b[1] - a[1])
    .slice(0, SETTINGS.candidates);
  candidates.push(Int32Array.from(scored.map(([c]) => c)));
  const initial = Float32Array.from(scored.map(([c]) => together[c] as number));
  const sum = initial.reduce((a, b) => a + b, 0) || 1;
  t.push(initial.map((x) => x / sum));
  for (const c of touched) together[c] = 0;
}

// Model 1's EM over the candidates, NULL fixed to the background distribution of code tokens.
// NULL: the share of pairs whose code holds the token (`if` in half of them), so what any code has is explained
// by it and not by the pair's words.
const background = Float32Array.from(code.df, (n) => n / N);
const inPair = new Float32Array(code.terms.length); // per pair: the denominator of each of its code tokens
for (let round = 0; round < SETTINGS.rounds; round++) {
  const counts = t.map((row) => new Float32Array(row.length));
  for (let p = 0; p < N; p++) {
    const cs = C[p] as Int32Array;
    const es = E[p] as Int32Array;
    for (const c of cs) inPair[c] = background[c] as number;
    for (const e of es) {
      const cand = candidates[e] as Int32Array;
      const row = t[e] as Float32Array;
      for (let k = 0; k < cand.length; k++) {
        const c = cand[k] as number;
        if (inPair[c] as number) inPair[c] = (inPair[c] as number) + (row[k] as number);
      }
    }
    for (const e of es) {
      const cand = candidates[e] as Int32Array;
      const row = t[e] as Float32Array;
      const count = counts[e] as Float32Array;
      for (let k = 0; k < cand.length; k++) {
        const denominator = inPair[cand[k] as number] as number;
        if (denominator) count[k] = (count[k] as number) + (row[k] as number) / denominator;
      }
    }
    for (const c of cs) inPair[c] = 0;
  }
  let change = 0;
  counts.forEach((count, e) => {
    const sum = count.reduce((a, b) => a + b, 0) || 1;
    const row = t[e] as Float32Array;
    for (let k = 0; k < count.length; k++) {
      const next = (count[k] as number) / sum;
      change += Math.abs(next - (row[k] as number));
      row[k] = next;
    }
  });
  process.stdout.write(`EM round ${round + 1}: mean change ${(change / english.terms.length).toFixed(4)}\n`);
}

// The table: each English word's most probable code tokens (itself left out: a query has its own words).
const table: Record<string, Array<[string, number]>> = {};
english.terms.forEach((word, e) => {
  const row = t[e] as Float32Array;
  const best = [...(candidates[e] as Int32Array)]
    .map((c, k) => [c, row[k] as number] as const)
    // A token in more than maxShare of all pairs' code (`string`, `value`) tells nothing of the word.
    .filter(([c]) => (background[c] as number) <= SETTINGS.maxShare)
    .map(([c, p]) => [code.terms[c] as string, p] as [string, number])
    .filter(([c, p]) => c !== word && p >= SETTINGS.minProbability)
    .sort((a, b) => b[1] - a[1])
    .slice(0, SETTINGS.keep)
    .map(([c, p]) => [c, Math.round(p * 1000) / 1000] as [string, number]);
  if (best.length > 0) table[word] = best;
});
// Abbreviations: a short code token written for an English word (`ctx` for context, `cfg` for config, `btn` for
// button): its letters in the word's order from the first, at least 2 and 2 fewer than the word's, rare as an
// English word of the comments, and seen with the word at least four times as often as chance would put them.
const abbreviations: Record<string, string[]> = {};
const isAbbreviation = (short: string, word: string) => {
  if (short.length < 2 || short.length > word.length - 2 || short[0] !== word[0] || !/^[a-z]+$/.test(short))
    return false;
  let at = 0;
  for (const ch of word) if (ch === short[at]) at++;
  return at === short.length;
};
english.terms.forEach((word, e) => {
  if (word.length < 4) return;
  const counts = new Map<number, number>();
  for (const p of pairsOf[e] as number[])
    for (const c of C[p] as Int32Array)
      if (isAbbreviation(code.terms[c] as string, word)) counts.set(c, (counts.get(c) ?? 0) + 1);
  const kept = [...counts]
    .filter(([c, n]) => {
      const short = code.terms[c] as string;
      const asEnglish = english.df[english.ids.get(short) ?? -1] ?? 0;
      return (
        n >= SETTINGS.minPairs &&
        asEnglish * 4 < (code.df[c] as number) &&
        n * N >= 4 * (english.df[e] as number) * (code.df[c] as number)
      );
    })
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([c]) => code.terms[c] as string);
  if (kept.length > 0) abbreviations[word] = kept;
});
const seconds = Math.round((performance.now() - started) / 1000);
writeFileSync(
  out,
  `${JSON.stringify({
    method:
      'IBM Model 1 t(code token | English word) over (doc comment first sentence, code tokens) pairs, NULL fixed to the code tokens background, candidates by count-weighted PMI',
    settings: SETTINGS,
    pairs: N,
    files,
    seconds,
    debian: versions,
    npm: 'node_modules, bench/corpora/node_modules and bench/corpora-train/node_modules as pinned by their package-lock.json',
    licences,
    excluded,
    table,
    abbreviations,
  })}\n`,
);
process.stdout.write(
  `${Object.keys(table).length} English words, ${Object.keys(abbreviations).length} abbreviated → ${out} (${seconds} s)\n`,
);
