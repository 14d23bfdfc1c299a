// EXPERIMENT (issue 32, round four): for each English word of mined doc-comment first sentences, how many pairs hold it
// and how many of those also hold it in the code below (its self-translation rate), and its share of all code.
// Read by the `selfWeight` experiment in src/search/vectors/translation.ts (EXP_SELF=FILE).
import { writeFileSync } from 'node:fs';
import { sentenceOf } from '../bench/nl-queries.js';
import { minePairs } from '../scripts/mine-pairs.js';
import { tokenize } from '../src/search/lexical/tokenize.js';

const { pairs } = minePairs({ max: 400_000, wide: true });
const inSentence = new Map<string, number>();
const self = new Map<string, number>();
const codeDf = new Map<string, number>();
for (const p of pairs) {
  const e = new Set(tokenize(sentenceOf(p.comment) ?? p.comment));
  const c = new Set(tokenize(p.code));
  for (const t of c) codeDf.set(t, (codeDf.get(t) ?? 0) + 1);
  for (const t of e) {
    inSentence.set(t, (inSentence.get(t) ?? 0) + 1);
    if (c.has(t)) self.set(t, (self.get(t) ?? 0) + 1);
  }
}
const out: Record<string, [number, number, number]> = {};
for (const [t, n] of inSentence) if (n >= 5) out[t] = [n, self.get(t) ?? 0, codeDf.get(t) ?? 0];
writeFileSync('/tmp/exp/self-stats.json', JSON.stringify({ N: pairs.length, words: out }));
console.log(pairs.length, Object.keys(out).length);
