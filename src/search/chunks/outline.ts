// The outline of a source file without a parse: where its definitions start and end, found by a line pattern per
// language (ctags-style) and their extents by a single scan that skips comments and strings and counts braces (or,
// for Python and Ruby, by indentation). About 20× cheaper than a tree-sitter parse, which on a large tree is most
// of an index build; chunker.ts cuts the outline as it cuts a syntax tree (units, their members, glue between).
// Each language's comments, quotes and definition patterns are in language-syntax.ts.
import { SYNTAX, type Syntax } from './language-syntax.js';

/** A definition: rows 0-based and inclusive, the definitions inside it, and whether those are its members. */
export interface OutlineDef {
  row: number;
  end: number;
  name: string | undefined;
  /** A class, module, namespace, impl…: what it contains is definitions too (a function's locals are not). */
  holder: boolean;
  /** An enum: its members are its variants (`Red,`, `Some(T),`), named like definitions. */
  variants?: boolean;
  children: OutlineDef[];
}

/** Words that open a statement, never a definition: `if (…)`, `return f(…)`, `new T(…)`. */
const NOT_A_NAME = new Set(
  (
    'if else for foreach while do switch case catch return throw sizeof typeof alignof decltype synchronized ' +
    'using lock try finally goto await yield assert with elif unless until'
  ).split(' '),
);

/** An enum's variant: `Red,`, `Some(T),`, `FLAG_X = 1 << 2,`, `Point { x: i32 },`. */
const VARIANT = /^\s*([A-Za-z_]\w*)\s*(?:[,({=;]|$)/;

/** Words before a call that make it a statement, not a signature: `return f(…)`, `new T(…)`, `else g(…)`. */
const STATEMENT = new Set(
  'return throw new delete else case goto await yield typeof sizeof do co_return co_await'.split(' '),
);

/** What one scan of a file tells about each line. */
interface LineFacts {
  /** Brace depth at the line's start and end. */
  depth: Int32Array;
  depthEnd: Int32Array;
  /** The line starts inside a comment or string, or inside parentheses/brackets (a continued expression). */
  continued: Uint8Array;
  /** The line's last code character (0: none). */
  last: Uint16Array;
}

/**
 * The definitions of a file in its language, nested, or undefined when the language has no outline patterns or
 * the scan does not balance (braces left open or closed too often: a construct the scan does not know, such as a
 * regular expression literal holding a quote), when the caller parses instead.
 */
export function outline(lines: readonly string[], language: string): OutlineDef[] | undefined {
  const syntax = SYNTAX[language];
  if (!syntax) return undefined;
  const facts = scan(lines, syntax);
  if (!facts) return undefined;
  const found: OutlineDef[] = [];
  /** Open definitions, innermost last. */
  const stack: OutlineDef[] = [];
  for (let row = 0; row < lines.length; row++) {
    while (stack.length > 0 && (stack[stack.length - 1] as OutlineDef).end < row) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent && !parent.holder) continue;
    if (facts.continued[row] || facts.last[row] === 0) continue;
    const line = lines[row] as string;
    if (line.length > 400 || line.trim() === '') continue;
    if (parent?.variants && facts.depth[row] === (facts.depth[parent.row] as number) + 1) {
      const variant = VARIANT.exec(line)?.[1];
      if (variant && !NOT_A_NAME.has(variant)) {
        parent.children.push({ row, end: row, name: variant, holder: false, children: [] });
        continue;
      }
    }
    if (!syntax.indented && !statementStart(facts, lines, row)) continue;
    const atTop = syntax.indented ? indent(line) === 0 : facts.depth[row] === 0;
    const match = definitionAt(line, syntax, atTop || parent !== undefined);
    if (!match) continue;
    const { end, body } = syntax.indented
      ? { end: indentedEnd(lines, facts, row), body: true }
      : bracedEnd(facts, lines, row);
    if (syntax.needsBody && !body) continue;
    const def: OutlineDef = { row, end, name: match.name, holder: match.holder, children: [] };
    if (match.holder && /\benum\b/.test(line)) def.variants = true;
    if (parent) parent.children.push(def);
    else found.push(def);
    stack.push(def);
  }
  return found;
}

function definitionAt(
  line: string,
  syntax: Syntax,
  membersAllowed: boolean,
): { name: string | undefined; holder: boolean } | undefined {
  for (const pattern of syntax.holders) {
    const match = pattern.exec(line);
    if (match) return { name: lastPart(match.slice(1).find((group) => group !== undefined)), holder: true };
  }
  for (const pattern of syntax.functions) {
    const match = pattern.exec(line);
    if (!match) continue;
    const name = match.slice(1).find((group) => group !== undefined);
    if (name && NOT_A_NAME.has(name)) continue;
    return { name: lastPart(name), holder: false };
  }
  if (syntax.signatures && membersAllowed) {
    const name = signatureName(line);
    if (name) return { name, holder: false };
  }
  if (syntax.topStatements && membersAllowed && !/^\s*(?:import\b|[)\]}])/.test(line))
    return { name: undefined, holder: false };
  return undefined;
}

/**
 * `static int *crc_update(int crc…`, `void Sink::flush() const {`, `public <T> List<T> of(T… items)`,
 * `Foo(int x) {`: the identifier right before the first `(`, preceded only by what a type and modifiers are made of.
 */
function signatureName(text: string): string | undefined {
  // Annotations and attributes before the signature (`@Override public void run()`, `[Fact] void Works()`).
  const line = text.replace(/^\s*(?:(?:@[\w.]+|\[[^\]]*\])(?:\([^)]*\))?\s*)+/, ' ');
  if (line.trim() === '') return undefined;
  const open = line.indexOf('(');
  if (open <= 0) return undefined;
  let before = line.slice(0, open).trimEnd();
  // Generic methods name their parameters after the name: `T Max<T>(…)` (C#).
  if (before.endsWith('>')) before = before.replace(/<[^<>]*>$/, '').trimEnd();
  const match = /(~?[A-Za-z_$][\w$]*(?:::~?[A-Za-z_]\w*)*|operator\s*[^\w\s(]+|operator\s+\w+)$/.exec(before);
  if (!match) return undefined;
  const prefix = before.slice(0, match.index);
  // A type then the name (`System.arraycopy(` is a call, `foo(` alone a constructor or C's K&R name); a type, a
  // space and a qualified name is C#'s explicit interface implementation (`T IUniTaskSource<T>.GetResult(`).
  const typed = /[\s*&>\]]$/.test(prefix) || (prefix.endsWith('.') && /\S\s+\S/.test(prefix.trim()));
  if (!/^[\s\w$.<>,[\]*&:?~]*$/.test(prefix) || (prefix.trim() !== '' && !typed)) return undefined;
  for (const word of prefix.match(/[A-Za-z_]\w*/g) ?? []) if (STATEMENT.has(word)) return undefined;
  const name = lastPart(match[1]);
  return name && !NOT_A_NAME.has(name) ? name : undefined;
}

const lastPart = (name: string | undefined) => name?.split(/::|\./).pop() || undefined;

const indent = (line: string) => line.length - line.trimStart().length;

/** The code before this line ended a statement, or opened or closed a block (not the middle of an expression). */
function statementStart(facts: LineFacts, lines: readonly string[], row: number): boolean {
  for (let previous = row - 1; previous >= 0; previous--) {
    const last = facts.last[previous] as number;
    if (last === 0) continue;
    const char = String.fromCharCode(last);
    if (';{}'.includes(char)) return true;
    const text = (lines[previous] as string).trim();
    // Annotations, attributes, decorators and templates on a line of their own go with what follows; so does
    // anything after a preprocessor line.
    if (/^(?:@|#|\[|template\s*<)/.test(text)) return true;
    // C's `static int` on the line above `name(…)` (the kernel's style), `>` of a C++ template.
    if (/^[A-Za-z_][\w\s*:<>,]*$/.test(text) && facts.depth[previous] === 0 && !text.endsWith(','))
      return true;
    // Code without semicolons: a line that neither ends in an operator nor is followed by one ends its statement.
    return !',(=&|+-?:<['.includes(char) && !/^\s*[.)\]=?|&+\-,<>*:]/.test(lines[row] as string);
  }
  return true;
}

/** Last row of a braced definition (where its block closes), and whether it has a block (C's prototypes do not). */
function bracedEnd(facts: LineFacts, lines: readonly string[], row: number): { end: number; body: boolean } {
  const depth = facts.depth[row] as number;
  const rows = lines.length;
  const own = indent(lines[row] as string);
  for (let at = row; at < rows && at < row + 12; at++) {
    // A new statement before any block: this one had none (code without semicolons: `export const X = /re/`).
    if (at > row && !facts.continued[at] && facts.last[at] !== 0 && startsStatement(lines, facts, at, own))
      return { end: at - 1, body: false };
    if ((facts.depthEnd[at] as number) > depth) {
      for (let end = at + 1; end < rows; end++)
        if ((facts.depthEnd[end] as number) <= depth) return { end, body: true };
      return { end: rows - 1, body: true };
    }
    const last = facts.last[at] as number;
    // `;` ends a declaration without a body; `}` a block opened and closed on this line.
    if (last === 59 /* ; */) return { end: at, body: false };
    if (last === 125 /* } */) return { end: at, body: true };
  }
  return { end: row, body: false };
}

/** Whether a line no deeper than `own` begins a statement of its own rather than going on with the one above. */
function startsStatement(lines: readonly string[], facts: LineFacts, at: number, own: number): boolean {
  const line = lines[at] as string;
  if (indent(line) > own || /^\s*[{)\].:=?|&+\-,<>*]/.test(line)) return false;
  for (let previous = at - 1; previous >= 0; previous--) {
    const last = facts.last[previous] as number;
    if (last === 0) continue;
    return !',(=&|+-?:<'.includes(String.fromCharCode(last));
  }
  return true;
}

/** Last row of an indented definition: before the next code line indented no deeper (Ruby's `end` included). */
function indentedEnd(lines: readonly string[], facts: LineFacts, row: number): number {
  const own = indent(lines[row] as string);
  let end = row;
  for (let at = row + 1; at < lines.length; at++) {
    const line = lines[at] as string;
    if (line.trim() === '') continue;
    // A continued expression or string goes on with the block whatever its indentation; a comment only when
    // indented into it (one at the left margin is the next definition's).
    if (facts.continued[at] || facts.last[at] === 0) {
      if (facts.continued[at] || indent(line) > own) end = at;
      continue;
    }
    if (indent(line) <= own) return /^\s*end\b/.test(line) ? at : end;
    end = at;
  }
  return end;
}

/** One pass over the file: brace depth per line, what is comment or string, the last code character. */
function scan(lines: readonly string[], syntax: Syntax): LineFacts | undefined {
  const rows = lines.length;
  const facts: LineFacts = {
    depth: new Int32Array(rows),
    depthEnd: new Int32Array(rows),
    continued: new Uint8Array(rows),
    last: new Uint16Array(rows),
  };
  let depth = 0;
  let parens = 0;
  /** Inside: 0 code, 1 block comment, 2 a string closed by `quote`, 3 a triple-quoted string. */
  let inside = 0;
  let quote = '';
  for (let row = 0; row < rows; row++) {
    const line = lines[row] as string;
    facts.depth[row] = depth;
    facts.continued[row] = inside !== 0 || parens > 0 ? 1 : 0;
    let last = 0;
    for (let i = 0; i < line.length; i++) {
      const c = line.charCodeAt(i);
      if (inside === 1) {
        if (c === 42 /* * */ && line.charCodeAt(i + 1) === 47 /* / */) {
          inside = 0;
          i++;
        }
        continue;
      }
      if (inside === 2) {
        if (c === 92 /* \ */) i++;
        else if (line[i] === quote) inside = 0;
        continue;
      }
      if (inside === 3) {
        if (line.startsWith(quote, i)) {
          inside = 0;
          i += 2;
        }
        continue;
      }
      if (c === 32 || c === 9 || c === 13) continue;
      const char = line[i] as string;
      if (
        syntax.lineComments.some((marker) => line.startsWith(marker, i)) &&
        !(c === 35 && line[i + 1] === '{')
      )
        break;
      if (syntax.blockComments && c === 47 && line.charCodeAt(i + 1) === 42) {
        inside = 1;
        i++;
        continue;
      }
      if (
        c === 47 /* / */ &&
        syntax.regexLiterals &&
        (last === 0 || REGEX_AFTER.includes(String.fromCharCode(last)))
      ) {
        i = regexEnd(line, i);
        last = 47;
        continue;
      }
      if (syntax.quotes.includes(char) || (char === "'" && isCharLiteral(line, i))) {
        const triple = syntax.indented && line.startsWith(char.repeat(3), i);
        quote = triple ? char.repeat(3) : char;
        inside = triple ? 3 : 2;
        if (triple) i += 2;
        last = c;
        continue;
      }
      if (c === 123 /* { */) depth++;
      else if (c === 125 /* } */) depth--;
      else if (c === 40 || c === 91) parens++;
      else if (c === 41 || c === 93) parens = Math.max(0, parens - 1);
      if (depth < 0) return undefined;
      last = c;
    }
    // A string left open at the end of a line is a mistake of the scan (or a multi-line string it cannot tell).
    if (inside === 2 && quote !== '`') inside = 0;
    facts.depthEnd[row] = depth;
    facts.last[row] = last;
  }
  return syntax.indented || depth === 0 ? facts : undefined;
}

/** Characters after which `/` opens a regular expression rather than divides. */
const REGEX_AFTER = '(,=:[!&|?{};+-*%<>~^';

/** Where a regular expression literal opened at `at` ends (its last `/`; the line's end if it does not close). */
function regexEnd(line: string, at: number): number {
  let inClass = false;
  for (let i = at + 1; i < line.length; i++) {
    const char = line[i];
    if (char === '\\') i++;
    else if (char === '[') inClass = true;
    else if (char === ']') inClass = false;
    else if (char === '/' && !inClass) return i;
  }
  return line.length;
}

/** `'a'`, `'\n'`, `'\u{1F600}'`: a char literal (Rust's lifetimes `'a` are not). */
function isCharLiteral(line: string, at: number): boolean {
  if (line[at + 1] === '\\') return true;
  return line[at + 2] === "'";
}
