// Natural language over uncommented code: queries made from the doc comments of a tree's definitions, searched
// in a copy of the tree where every doc comment is blanked (lines kept, so nothing else moves). The words of
// such a query are in no indexed file: a search must tie English to identifiers and code. The miner is
// independent of the chunker under test: comment blocks by line markers, a definition by keywords.
import { cpSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, relative } from 'node:path';

/** A mined query and the file whose definition it documents. */
export interface NlQuery {
  query: string;
  file: string;
  /** The line the comment sits on (after annotations), trimmed. */
  under?: string;
}

/** How a language writes doc comments. */
export type Style = 'slash' | 'hash' | 'dash' | 'python';
/** Comment style by file extension. */
export const STYLE: Record<string, Style> = {
  '.java': 'slash',
  '.c': 'slash',
  '.h': 'slash',
  '.cc': 'slash',
  '.cpp': 'slash',
  '.hpp': 'slash',
  '.go': 'slash',
  '.rs': 'slash',
  '.js': 'slash',
  '.ts': 'slash',
  '.cs': 'slash',
  '.kt': 'slash',
  '.swift': 'slash',
  '.php': 'slash',
  '.rb': 'hash',
  '.bash': 'hash',
  '.sh': 'hash',
  '.lua': 'dash',
  '.py': 'python',
};

const COMMENT: Record<Exclude<Style, 'python'>, RegExp> = {
  slash: /^\s*(\/\/|\/\*|\*)/,
  hash: /^\s*#(?![!{[])/,
  dash: /^\s*--/,
};
const DEFINITION =
  /\b(class|struct|interface|enum|trait|fn|func|fun|def|function|module|protocol|extension|object|impl|record|void|static|public|private|protected|internal|export|local|sub)\b|^\s*[A-Za-z_][\w:<>*&\s]*\(/;

/**
 * Blocks of doc comment: 0-based inclusive line ranges (the definition follows each), their text, and the line
 * they document, trimmed (the one under the block past annotations; a Python docstring's `def` or `class` line).
 */
export function docBlocks(
  lines: string[],
  style: Style,
): Array<{ start: number; end: number; text: string; under: string }> {
  const out: Array<{ start: number; end: number; text: string; under: string }> = [];
  if (style === 'python') {
    for (let i = 0; i < lines.length - 1; i++) {
      if (!/^\s*(async\s+def|def|class)\s/.test(lines[i] as string)) continue;
      let j = i + 1;
      while (j < lines.length && !/[)\]:]\s*(->[^:]*)?:\s*$/.test(lines[j - 1] as string)) j++;
      const open = /^\s*[rbu]?("""|''')/.exec(lines[j] ?? '');
      if (!open) continue;
      let k = j;
      if (!((lines[j] as string).split(open[1] as string).length > 2))
        while (k + 1 < lines.length && !(lines[++k] as string).includes(open[1] as string));
      out.push({
        start: j,
        end: k,
        under: (lines[i] as string).trim(),
        text: lines
          .slice(j, k + 1)
          .join('\n')
          .replaceAll(open[1] as string, ''),
      });
      i = k;
    }
    return out;
  }
  const marker = COMMENT[style];
  let i = 0;
  while (i < lines.length) {
    if (!marker.test(lines[i] as string)) {
      i++;
      continue;
    }
    const start = i;
    while (i < lines.length && marker.test(lines[i] as string)) i++;
    let next = i;
    // Attributes and annotations between a doc comment and its definition (`@Override`, `#[inline]`).
    while (next < lines.length && /^\s*(@\w|#\[|\[\w)/.test(lines[next] as string)) next++;
    if (next < lines.length && DEFINITION.test(lines[next] as string))
      out.push({
        start,
        end: i - 1,
        text: lines.slice(start, i).join('\n'),
        under: (lines[next] as string).trim(),
      });
  }
  return out;
}

/**
 * Whether a line (trimmed) defines something: a function, class, method, field, type or a constant bound to a
 * function. {@link docBlocks}' test is looser (any line shaped `name(` — `if (`, a call — passes it), so a block
 * it finds may be a remark above a statement; those are blanked but, with `definitionsOnly`, not made queries.
 */
export function definesSomething(line: string): boolean {
  if (
    /^(if|else|for|while|do|switch|case|return|throw|try|catch|finally|await|yield|break|continue|new|super|this)\b/.test(
      line,
    )
  )
    return false;
  return (
    /^(export\s+)?(default\s+)?(declare\s+)?(async\s+)?(function\*?|class|interface|enum|type|abstract|def|fn|func|fun|struct|trait|impl|module|record|namespace)\b/.test(
      line,
    ) ||
    /^((public|private|protected|static|final|abstract|synchronized|native|default|override|readonly|async|get|set|pub(\([\w:]+\))?|local|extern|inline|unsafe|virtual|open|internal|@\w+)\s+)+/.test(
      line,
    ) ||
    /^(export\s+)?(const|let|var)\s+[\w$]+\s*=\s*(async\s*)?(\(|function|[\w$]+\s*=>)/.test(line) ||
    /^(static\s+|async\s+|get\s+|set\s+|\*\s*)*[A-Za-z_$][\w$]*\s*(<[^>]*>)?\([^)]*\)\s*(:[^{]+)?\{\s*$/.test(
      line,
    ) ||
    /^[\w$<>[\],.?]+(\s+[\w$<>[\],.?]+)*\s+[A-Za-z_$][\w$]*\s*\(/.test(line)
  );
}

/** The first sentence of a doc comment, without markers, tags and markup; undefined if too short or long. */
export function sentenceOf(text: string): string | undefined {
  const prose: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw
      .replace(/^\s*(\/\*\*?|\*\/|\*|\/\/\/?|!|#+|--+|\[\[)/, '')
      .replace(/\*\/\s*$/, '')
      .trim();
    if (/^[@:]\w|^(Args|Returns|Parameters|Example|Note|SAFETY)\b/.test(line)) break;
    if (line === '') {
      if (prose.length > 0) break;
      continue;
    }
    prose.push(line);
  }
  const joined = prose
    .join(' ')
    .replace(/\{@\w+\s+([^}]*)\}/g, '$1')
    .replace(/<[^>]+>/g, ' ')
    .replace(/[`*_]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const first = (joined.split(/(?<=[.!?])\s/)[0] ?? '').replace(/[.:]$/, '');
  const words = first.split(' ').filter((w) => /[a-z]/i.test(w));
  if (words.length < 4 || words.length > 30 || /^(TODO|FIXME|XXX|Copyright|SPDX|Licensed)/i.test(first))
    return undefined;
  return first;
}

export function walk(root: string, dir = root, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(root, path, out);
    else if (STYLE[extname(name)]) out.push(relative(root, path));
  }
  return out;
}

/**
 * Copies `root` to a temporary directory (mcpkit-bench-nl-*) with every doc comment blanked, and returns it
 * with up to `limit` queries from those comments (an even sample, the same every run).
 */
export function blankedCopy(
  root: string,
  limit: number,
  { definitionsOnly = false }: { definitionsOnly?: boolean } = {},
): { dir: string; queries: NlQuery[] } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-bench-nl-'));
  cpSync(root, dir, { recursive: true });
  const all: NlQuery[] = [];
  for (const file of walk(dir)) {
    const path = join(dir, file);
    const lines = readFileSync(path, 'utf8').split('\n');
    const blocks = docBlocks(lines, STYLE[extname(file)] as Style);
    if (blocks.length === 0) continue;
    for (const block of blocks) {
      const query = sentenceOf(block.text);
      if (query && (!definitionsOnly || definesSomething(block.under)))
        all.push({ query, file, under: block.under });
      for (let line = block.start; line <= block.end; line++) lines[line] = '';
    }
    writeFileSync(path, lines.join('\n'));
  }
  // The first file of each query (a Set: the JDK's tree has ~100k doc comments).
  const seen = new Set<string>();
  const unique = all.filter((q) => !seen.has(q.query) && seen.add(q.query));
  const step = Math.max(1, unique.length / limit);
  const queries: NlQuery[] = [];
  for (let at = 0; at < unique.length && queries.length < limit; at += step)
    queries.push(unique[Math.floor(at)] as NlQuery);
  return { dir, queries };
}
