/**
 * Code-aware tokens: identifiers are split at camelCase, snake_case, kebab-case and letter/digit
 * boundaries (`readFileSync2` → read, file, sync, 2), lower-cased, with a light English suffix folding so
 * `issues`, `issue`, `creating` and `create` meet. The whole identifier is kept too when it splits, so an
 * exact name still scores above its parts.
 */

const PARTS = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+|\p{L}+/gu;

/** Words too common to tell documents apart. */
const STOPWORDS = new Set(
  (
    'a an and are as at be by can do does for from has have how i in into is it its me my of on or our ' +
    'please should so some that the their them then there these this to up us was we what when where ' +
    'which while who will with would you your'
  ).split(' '),
);

/** Folds common English suffixes: enough to match plural, -ing and -ed forms, cheap enough for every token. */
export function stem(word: string): string {
  return dropFinalE(stripSuffix(word));
}

const VOWEL = /[aeiouy]/;

function stripSuffix(word: string): string {
  const n = word.length;
  if (n <= 3) return word;
  if (word.endsWith('ies') && n > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ches') || word.endsWith('shes') || word.endsWith('xes')) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is'))
    return word.slice(0, -1);
  // Only when a vowel is left (Porter's rule): `string` stays `string`, not `str`; `spring`, `bed` likewise.
  if (word.endsWith('ing') && n > 5 && VOWEL.test(word.slice(0, -3))) return undouble(word.slice(0, -3));
  if (word.endsWith('ed') && n > 4 && VOWEL.test(word.slice(0, -2))) return undouble(word.slice(0, -2));
  return word;
}

/** `create`, `creating` and `created` all become `creat` (short words such as `file` keep their e). */
function dropFinalE(word: string): string {
  return word.length > 4 && word.endsWith('e') ? word.slice(0, -1) : word;
}

/** `running` → `runn` → `run`; `stopped` → `stop`. */
function undouble(word: string): string {
  const n = word.length;
  if (n > 2 && word[n - 1] === word[n - 2] && !'lsz'.includes(word[n - 1] as string))
    return word.slice(0, -1);
  return word;
}

/** Options for {@link tokenize}. */
export interface TokenizeOptions {
  /** Drop stopwords (default true). */
  stopwords?: boolean;
}

/** Tokens of a word seen before, per stopword setting: code repeats its identifiers, so most words hit. */
const cache = [new Map<string, readonly string[]>(), new Map<string, readonly string[]>()] as const;
const CACHE_LIMIT = 200_000;

/** The tokens of a text, in order, repeats kept (term frequency matters to BM25). */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const dropStopwords = options.stopwords ?? true;
  const seen = cache[dropStopwords ? 1 : 0];
  const out: string[] = [];
  // A hand scan for words (runs of letters and digits): matchAll would allocate a match per word, and
  // this runs over every line of a repository. ASCII is decided by code; anything else by WORD_CHAR.
  const n = text.length;
  let i = 0;
  while (i < n) {
    while (i < n && !isWordAt(text, i)) i += widthAt(text, i);
    const start = i;
    while (i < n && isWordAt(text, i)) i += widthAt(text, i);
    if (i === start) continue;
    for (const token of tokensOfWord(text.slice(start, i), dropStopwords, seen)) out.push(token);
  }
  return out;
}

/** The tokens of one word (a run of letters and digits, as {@link tokenize} finds them). */
export function tokensOfWord(
  word: string,
  dropStopwords = true,
  seen = cache[dropStopwords ? 1 : 0],
): readonly string[] {
  let tokens = seen.get(word);
  if (!tokens) {
    tokens = wordTokens(word, dropStopwords);
    if (seen.size >= CACHE_LIMIT) seen.clear();
    seen.set(word, tokens);
  }
  return tokens;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Whether a word (letters and digits) goes on at this position. */
export function isWordAt(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  if (code < 128)
    return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
  return WORD_CHAR.test(String.fromCodePoint(text.codePointAt(at) as number));
}

/** 2 at the start of a surrogate pair (one character outside the BMP), else 1. */
export function widthAt(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code >= 0xd800 && code <= 0xdbff && at + 1 < text.length ? 2 : 1;
}

function wordTokens(word: string, dropStopwords: boolean): string[] {
  const out: string[] = [];
  const parts = word.match(PARTS) ?? [word];
  if (parts.length > 1) {
    const whole = word.toLowerCase();
    if (!(dropStopwords && STOPWORDS.has(whole))) out.push(whole);
  }
  for (const part of parts) {
    const lower = part.toLowerCase();
    if (dropStopwords && STOPWORDS.has(lower)) continue;
    out.push(stem(lower));
  }
  return out;
}
