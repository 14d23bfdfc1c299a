import { createRequire } from 'node:module';
import type { Language, Parser, Node as SyntaxNode } from 'web-tree-sitter';
import { grammarBytes } from '../internal/grammar-file.js';
import { type LanguageSpec, languageOf } from './languages.js';
import { type OutlineDef, outline } from './outline.js';

/** A piece of a file the index stores and returns. Lines are 1-based and inclusive. */
export interface Chunk {
  path: string;
  startLine: number;
  endLine: number;
  language: string;
  /** Names defined in the chunk (functions, classes, methods, …). */
  symbols: string[];
  content: string;
}

/** The most lines a chunk may hold before it is split (a unit larger than this is split at its children). */
const MAX_LINES = 60;
/** Line windows for text without a grammar. */
const WINDOW = 40;
/**
 * Lines this long on average are not code anyone wrote (minified or generated text, or bytes posing as code):
 * parsing them costs far more than it tells, so such a file is cut in line windows.
 */
const MAX_MEAN_LINE = 400;
/**
 * How long one file may take to parse and cut at syntax. Real files take well under 100 ms (a 1 MiB one too);
 * text built to make the parser's error recovery work hard is stopped here and cut in line windows.
 */
const PARSE_BUDGET_MS = 1000;
/**
 * A node with more children than this is not code anyone wrote (500,000 `{` make one flat error node):
 * listing them alone would cost a second. Treated as over budget.
 */
const MAX_CHILDREN = 20_000;

/** Thrown inside {@link splitNode} when the file's budget is spent. */
class OverBudget extends Error {}

const require = createRequire(import.meta.url);
let parser: Promise<Parser> | undefined;
const languages = new Map<string, Promise<Language>>();

/**
 * The shared parser and a grammar, loaded once each. The caller sets the language and parses in one
 * synchronous step: concurrent chunkFile calls share the parser, and an await between the two would let
 * another call switch its language.
 */
async function grammarFor(grammar: string): Promise<{ parser: Parser; language: Language }> {
  parser ??= (async () => {
    const { Parser } = await import('web-tree-sitter');
    await Parser.init({ locateFile: () => require.resolve('web-tree-sitter/tree-sitter.wasm') });
    return new Parser();
  })();
  // Grammars load only once the runtime is initialised.
  const ready = await parser;
  let language = languages.get(grammar);
  if (!language) {
    language = import('web-tree-sitter').then(async ({ Language }) =>
      Language.load(await grammarBytes(grammar)),
    );
    languages.set(grammar, language);
  }
  return { parser: ready, language: await language };
}

/** Options for {@link chunkFile}. */
export interface ChunkOptions {
  /** Cut at syntax (default true); false: line windows, for build output that nobody reads by unit. */
  syntax?: boolean;
  /**
   * Cut at the definitions an outline finds (outline.ts: line patterns and brace or indentation matching) instead of
   * a parse, where the language has one and the file's braces balance: ~20× cheaper, for large trees.
   */
  outline?: boolean;
  /**
   * Called when a file of a language with a grammar is cut in line windows instead, with why: its lines are
   * too long on average, its parse ran over the budget (1 s), or the grammar failed on it.
   */
  onLineWindows?: (why: 'long lines' | 'parse budget' | 'parse error') => void;
}

/**
 * Splits a file into chunks: at function / class / method boundaries for languages with a grammar (a unit
 * too long is split at its children; the comments right above a unit go with it; other statements are
 * grouped), at headings for Markdown, and in line windows for everything else.
 */
export async function chunkFile(path: string, text: string, options: ChunkOptions = {}): Promise<Chunk[]> {
  const spec = languageOf(path, text);
  const lines = text.split('\n');
  if (spec.grammar && spec.units && options.syntax !== false) {
    const defs = options.outline ? outline(lines, spec.name) : undefined;
    if (defs)
      return mergeTiny(outlineCut(lines, defs, 0, lines.length - 1)).map((range) =>
        toChunk(path, spec, lines, range),
      );
    if (text.length > MAX_MEAN_LINE * lines.length) options.onLineWindows?.('long lines');
    else {
      try {
        const { parser, language } = await grammarFor(spec.grammar);
        parser.setLanguage(language);
        const until = performance.now() + PARSE_BUDGET_MS;
        // Returning true from the progress callback cancels the parse (typed as void in web-tree-sitter).
        const tree = parser.parse(text, null, { progressCallback: () => performance.now() > until });
        if (tree) {
          try {
            const ranges = mergeTiny(splitNode(tree.rootNode, new Set(spec.units), until));
            return ranges.map((range) => toChunk(path, spec, lines, range));
          } finally {
            tree.delete();
          }
        }
        // A cancelled parse would be resumed by the next one: start that from the beginning.
        parser.reset();
        options.onLineWindows?.('parse budget');
      } catch (error) {
        // Over budget, or a grammar that fails on this file: line windows still index it.
        options.onLineWindows?.(error instanceof OverBudget ? 'parse budget' : 'parse error');
      }
    }
  }
  const ranges =
    spec.name === 'markdown'
      ? markdownSections(lines)
      : spec.definitions
        ? mergeTiny(definitionCut(lines, spec.definitions))
        : windows(0, lines.length - 1);
  return ranges.map((range) => toChunk(path, spec, lines, range));
}

/** Rows are 0-based and inclusive here. */
interface Range {
  start: number;
  end: number;
  symbols: string[];
}

function splitNode(node: SyntaxNode, units: ReadonlySet<string>, until: number): Range[] {
  if (node.childCount > MAX_CHILDREN || performance.now() > until) throw new OverBudget();
  const out: Range[] = [];
  /** Statements between units; `comments`: the first row of the comments that end it (-1: none). */
  let glue: { start: number; end: number; comments: number } | undefined;
  const flushGlue = () => {
    if (glue) out.push(...windows(glue.start, glue.end));
    glue = undefined;
  };
  for (const child of node.children) {
    if (!child) continue;
    const start = child.startPosition.row;
    const end =
      child.endPosition.column === 0 && child.endPosition.row > start
        ? child.endPosition.row - 1
        : child.endPosition.row;
    if (units.has(child.type) || (end - start + 1 > MAX_LINES && child.childCount > 0)) {
      // Comments right above a unit (a blank line between at most) belong to it: doc comments say what it does.
      let unitStart = start;
      if (glue && glue.comments >= 0 && glue.end >= start - 2) {
        unitStart = glue.comments;
        glue.end = unitStart - 1;
        if (glue.end < glue.start) glue = undefined;
      }
      flushGlue();
      // Whether the unit fits is judged without its doc comment: a long comment still goes with its code.
      if (end - start + 1 <= MAX_LINES) {
        out.push({ start: unitStart, end, symbols: symbolsOf(child) });
      } else {
        const inner = splitNode(child, units, until);
        const pieces = inner.length > 0 ? inner : windows(unitStart, end);
        const first = pieces[0];
        // The unit's own name goes with its first piece: a class too long for one chunk is split at its
        // members, and its `class Name …` line must still say it defines Name.
        if (first && unitStart < first.start)
          pieces.unshift({ start: unitStart, end: first.start - 1, symbols: nameOf(child) });
        else if (first) first.symbols = [...new Set([...nameOf(child), ...first.symbols])];
        out.push(...pieces);
      }
      continue;
    }
    const isComment = child.type.includes('comment');
    if (!glue) glue = { start, end, comments: isComment ? start : -1 };
    else {
      if (isComment && glue.comments < 0) glue.comments = start;
      if (!isComment) glue.comments = -1;
      glue.end = Math.max(glue.end, end);
    }
    if (glue.end - glue.start + 1 >= MAX_LINES) flushGlue();
  }
  flushGlue();
  return out;
}

function nameOf(node: SyntaxNode): string[] {
  const name = node.childForFieldName('name');
  if (name) return [name.text];
  // C and C++ functions name themselves in a declarator chain: `int *crc_update(int crc)`, `void Sink::flush()`.
  // Only a chain through a function declarator names a function: the C grammar reads C++'s `namespace spdlog {…}`
  // as a function `spdlog` of type `namespace` without parentheses.
  let declarator = node.childForFieldName('declarator');
  let callable = false;
  for (let depth = 0; declarator && depth < 8; depth++) {
    if (declarator.type === 'function_declarator') callable = true;
    const inner = declarator.childForFieldName('declarator');
    if (!inner) break;
    declarator = inner;
  }
  if (callable && declarator && /identifier|_name$/.test(declarator.type) && declarator.text.length < 100)
    return [declarator.text.split('::').pop() as string];
  // `const x = () => …`, `export function f`, decorated definitions: the name is one level down.
  for (const child of node.namedChildren) {
    if (!child) continue;
    const inner = child.childForFieldName('name');
    if (inner && inner.text.length < 100) return [inner.text];
  }
  return [];
}

const DEFINITION = /function|method|class|interface|struct|enum|trait|impl|module|type_alias|constructor/;
/** Nodes whose members are definitions too (a class's methods), unlike a function's locals. */
const HOLDER =
  /class|interface|struct|enum|trait|impl|module|namespace|export_statement|decorated_definition|body|block|declaration_list/;
const FUNCTION = /function|method|constructor|lambda|arrow/;

/** The names a unit defines: its own and those of the definitions inside it (methods of a class). */
function symbolsOf(node: SyntaxNode): string[] {
  const names = new Set(nameOf(node));
  const visit = (parent: SyntaxNode, depth: number) => {
    if (depth > 5) return;
    for (const child of parent.namedChildren) {
      if (!child) continue;
      if (DEFINITION.test(child.type)) for (const n of nameOf(child)) names.add(n);
      if (HOLDER.test(child.type) && !FUNCTION.test(child.type)) visit(child, depth + 1);
    }
  };
  if (!FUNCTION.test(node.type)) visit(node, 0);
  return [...names];
}

/**
 * Cuts rows `from..to` at an outline's definitions as {@link splitNode} cuts at units: a definition that fits is one
 * chunk (named after itself and, for a class, its members), a longer one is cut at its members (or in windows),
 * the comments and annotations right above a definition go with it, and what lies between is cut in windows.
 */
function outlineCut(
  lines: readonly string[],
  defs: readonly OutlineDef[],
  from: number,
  to: number,
): Range[] {
  const out: Range[] = [];
  let cursor = from;
  const glue = (start: number, end: number) => {
    let first = start;
    while (first <= end && (lines[first] as string).trim() === '') first++;
    if (first <= end) out.push(...windows(first, end));
  };
  for (const def of defs) {
    let unitStart = def.row;
    while (unitStart - 1 >= cursor && ABOVE.test(lines[unitStart - 1] as string)) unitStart--;
    glue(cursor, unitStart - 1);
    if (def.end - def.row + 1 <= MAX_LINES)
      out.push({ start: unitStart, end: def.end, symbols: outlineNames(def) });
    else {
      const inner = def.children.length > 0 ? outlineCut(lines, def.children, def.row + 1, def.end) : [];
      const pieces = inner.length > 0 ? inner : windows(unitStart, def.end);
      const first = pieces[0] as Range;
      const own = def.name ? [def.name] : [];
      if (unitStart < first.start) pieces.unshift({ start: unitStart, end: first.start - 1, symbols: own });
      else first.symbols = [...new Set([...own, ...first.symbols])];
      out.push(...pieces);
    }
    cursor = def.end + 1;
  }
  glue(cursor, to);
  return out;
}

/** A definition's name and those of its members, if it holds any (a class's methods, not a function's locals). */
function outlineNames(def: OutlineDef): string[] {
  const names = new Set<string>(def.name ? [def.name] : []);
  const visit = (holder: OutlineDef, depth: number) => {
    if (!holder.holder || depth > 5) return;
    for (const child of holder.children) {
      if (child.name) names.add(child.name);
      visit(child, depth + 1);
    }
  };
  visit(def, 0);
  return [...names];
}

/** Lines that go with the definition below them: comments, annotations, attributes, decorators. */
const ABOVE = /^\s*(\/\/|\/\*|\*|#(?!!)|@|#\[|\[\w)/;

/** Tiny neighbours (a closing brace, one field) are merged, as long as the result stays within MAX_LINES. */
function mergeTiny(ranges: Range[]): Range[] {
  const out: Range[] = [];
  for (const range of ranges) {
    const last = out[out.length - 1];
    const tiny = (r: Range) => r.end - r.start + 1 <= 3;
    if (last && (tiny(range) || tiny(last)) && range.end - last.start + 1 <= MAX_LINES) {
      last.end = Math.max(last.end, range.end);
      last.symbols = [...new Set([...last.symbols, ...range.symbols])];
    } else out.push({ ...range });
  }
  return out;
}

/** Lines that are only a comment (any of the common markers): they go with the definition below them. */
const COMMENT_LINE = /^\s*(\/\/|\/\*|\*|#(?!!)|--|;|\{-|-\})/;

/**
 * For a language without a grammar: a chunk starts at every line that opens a definition (with the comments
 * right above it) and is named after it; a piece over MAX_LINES is cut in windows, its name on the first.
 */
function definitionCut(lines: string[], pattern: RegExp): Range[] {
  const starts: Array<{ row: number; name: string }> = [];
  for (let row = 0; row < lines.length; row++) {
    const line = lines[row] as string;
    if (line.length > 300) continue;
    const match = pattern.exec(line);
    const name = match?.slice(1).find((group) => group !== undefined);
    if (!name) continue;
    let start = row;
    while (start > 0 && COMMENT_LINE.test(lines[start - 1] as string)) start--;
    const previous = starts[starts.length - 1];
    starts.push({ row: previous && start <= previous.row ? row : start, name });
  }
  if (starts.length === 0) return windows(0, lines.length - 1);
  const out: Range[] =
    (starts[0] as { row: number }).row > 0 ? windows(0, (starts[0] as { row: number }).row - 1) : [];
  starts.forEach(({ row, name }, i) => {
    const end = (starts[i + 1]?.row ?? lines.length) - 1;
    const pieces = windows(row, end);
    const names = new Set([name, name.split(/[.:]/).pop() as string]);
    (pieces[0] as Range).symbols = [...names];
    out.push(...pieces);
  });
  return out;
}

function markdownSections(lines: string[]): Range[] {
  const out: Range[] = [];
  let start = 0;
  for (let row = 1; row < lines.length; row++) {
    if (/^#{1,6}\s/.test(lines[row] as string)) {
      out.push(...windows(start, row - 1));
      start = row;
    }
  }
  out.push(...windows(start, lines.length - 1));
  return out.map((range) => ({ ...range, symbols: headingOf(lines[range.start]) }));
}

const headingOf = (line: string | undefined) => {
  const match = /^#{1,6}\s+(.*)$/.exec(line ?? '');
  return match?.[1] ? [match[1].trim()] : [];
};

function windows(start: number, end: number): Range[] {
  const out: Range[] = [];
  for (let from = start; from <= end; from += WINDOW)
    out.push({ start: from, end: Math.min(end, from + WINDOW - 1), symbols: [] });
  return out;
}

function toChunk(path: string, spec: LanguageSpec, lines: string[], range: Range): Chunk {
  let { start, end } = range;
  while (start < end && (lines[start] ?? '').trim() === '') start++;
  while (end > start && (lines[end] ?? '').trim() === '') end--;
  return {
    path,
    startLine: start + 1,
    endLine: end + 1,
    language: spec.name,
    symbols: range.symbols,
    content: lines.slice(start, end + 1).join('\n'),
  };
}
