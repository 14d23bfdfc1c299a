// English → code translation (IBM Model 1, trained by scripts/train-translation.ts on mined (doc comment, code)
// pairs): a plain-English query also scores, in bm25, the indexed code tokens its words translate to — `compare`
// → `equal`, `compareto`; `wait` → `timeout`, `lock`, `interrupt` — so code that shares no word with the English
// can still match.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tokenize } from '../lexical/tokenize.js';
import { isProse } from './query-expansion.js';
import { BUILTIN_MODEL_DIR } from './static-model.js';

/** How many code tokens a query gains at most. */
const TERMS = 10;

/** The shipped table: English token → its code tokens with t(code | English). */
export class Translation {
  constructor(
    private readonly table: ReadonlyMap<string, ReadonlyArray<readonly [string, number]>>,
    /** English token → the abbreviations code writes for it (`context` → ctx), learned with the table. */
    private readonly abbreviations: ReadonlyMap<string, readonly string[]> = new Map(),
  ) {}

  private static shipped: Translation | undefined;

  /** The table shipped in models/code-words/translation.json (read once, ~20 ms). */
  static builtin(): Translation {
    if (!Translation.shipped) {
      const file = join(BUILTIN_MODEL_DIR, 'translation.json');
      const { table, abbreviations } = JSON.parse(readFileSync(file, 'utf8')) as {
        table: Record<string, Array<[string, number]>>;
        abbreviations?: Record<string, string[]>;
      };
      Translation.shipped = new Translation(
        new Map(Object.entries(table)),
        new Map(Object.entries(abbreviations ?? {})),
      );
    }
    return Translation.shipped;
  }

  /**
   * `terms` (a query's own, weight 1, and any expansion already made) with the indexed code tokens the query's
   * words translate to added: each at `weight` × the sum of its probabilities over the query's words, at most 1.
   */
  expand(
    query: string,
    weight: number,
    indexed: (term: string) => boolean,
    terms: Map<string, number> = new Map(tokenize(query).map((t) => [t, 1])),
  ): Map<string, number> {
    const gained = new Map<string, number>();
    for (const word of new Set(tokenize(query)))
      for (const [token, p] of this.table.get(word) ?? [])
        if (!terms.has(token)) gained.set(token, (gained.get(token) ?? 0) + p);
    const best = [...gained]
      .filter(([token]) => indexed(token))
      .sort((a, b) => b[1] - a[1])
      .slice(0, TERMS);
    for (const [token, p] of best) terms.set(token, Math.max(terms.get(token) ?? 0, Math.min(1, weight * p)));
    return terms;
  }

  /**
   * `terms` with the indexed abbreviations of the query's words added at `weight` (`context` also scores `ctx`,
   * `button` `btn`): identifier splitting cannot tie them, and an abbreviation means its word.
   */
  abbreviate(
    query: string,
    weight: number,
    indexed: (term: string) => boolean,
    terms: Map<string, number> = new Map(tokenize(query).map((t) => [t, 1])),
  ): Map<string, number> {
    for (const word of new Set(tokenize(query)))
      for (const short of this.abbreviations.get(word) ?? [])
        if (indexed(short)) terms.set(short, Math.max(terms.get(short) ?? 0, weight));
    return terms;
  }
}

/**
 * A query's bm25 terms with the shipped table's translations (a plain-English query, at `translation`) and
 * abbreviations (any query, at `abbreviation`) added to `terms` (the query's own when undefined); undefined when
 * both weights are 0.
 */
export function translatedTerms(
  query: string,
  weights: { translation: number; abbreviation: number },
  indexed: (term: string) => boolean,
  terms?: Map<string, number>,
): Map<string, number> | undefined {
  const translation = weights.translation > 0 && isProse(query);
  if (!translation && weights.abbreviation <= 0) return undefined;
  const shipped = Translation.builtin();
  let out = terms ?? new Map(tokenize(query).map((t) => [t, 1]));
  if (translation) out = shipped.expand(query, weights.translation, indexed, out);
  if (weights.abbreviation > 0) out = shipped.abbreviate(query, weights.abbreviation, indexed, out);
  return out;
}
