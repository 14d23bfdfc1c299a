import { isDeepStrictEqual } from 'node:util';
import { parse, stringify } from 'smol-toml';

/**
 * Sets `root.NAME` tables in a TOML text while keeping the rest of the text — comments included — as it
 * was. smol-toml (like every TOML library here) drops comments when it re-serialises, and users comment
 * their Codex config, so a replaced table is cut out by its headers and its new text put where it stood:
 * the comment above it stays above it and the tables around it (`[profiles.*]`) keep their places. A
 * server written as an inline table under `[root]` (`notes = { command = "x" }`) is replaced on its line,
 * as an inline table again, its trailing comment kept. New tables go after the last `root` table. The
 * result is parsed back and compared with the intended document; when the text has a shape this cannot
 * edit in place (the whole `root` inline, dotted keys, an inline table across lines) the answer is
 * undefined: the caller refuses rather than rewrite what it did not mean to touch.
 */
export function setTomlTables(
  text: string,
  original: Record<string, unknown>,
  root: string,
  tables: Record<string, Record<string, unknown>>,
): string | undefined {
  if (Object.keys(tables).length === 0) return text;
  const rootTable = (original[root] ?? {}) as Record<string, unknown>;
  const expected = { ...original, [root]: { ...rootTable, ...tables } };
  const render = (name: string) =>
    stringify({ [root]: { [name]: tables[name] } })
      .trimEnd()
      .split('\n');

  const out: string[] = [];
  const placed = new Set<string>();
  let afterRoot: number | undefined;
  for (const block of splitBlocks(text)) {
    const name = block.header?.[0] === root ? block.header[1] : undefined;
    if (name !== undefined && Object.hasOwn(tables, name)) {
      // The first block of a replaced table (its header; sub-tables follow) takes the new text.
      if (!placed.has(name)) out.push(...render(name));
      placed.add(name);
    } else if (block.header?.length === 1 && block.header[0] === root) {
      out.push(...block.lines.map((line) => replaceInline(line, tables, placed)));
    } else out.push(...block.lines);
    if (block.header?.[0] === root) afterRoot = out.length;
    out.push(...block.trailing);
  }
  const added = Object.keys(tables)
    .filter((name) => !placed.has(name))
    .flatMap((name) => ['', ...render(name)]);
  if (afterRoot === undefined) {
    while (out.length > 0 && (out.at(-1) as string).trim() === '') out.pop();
    if (out.length === 0) added.shift();
    out.push(...added, '');
  } else out.splice(afterRoot, 0, ...added);
  const edited = out.join('\n').replace(/\s*$/, '\n');
  try {
    if (isDeepStrictEqual(parse(edited), parse(stringify(expected)))) return edited;
  } catch {
    // The edit produced invalid TOML (e.g. a name also defined inline); not ours to rewrite.
  }
  return undefined;
}

const INLINE_ENTRY = /^(\s*)("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)(\s*=\s*)\{/;

/** `name = { … }  # note` with the new table inline when `name` is one of `tables`; else the line. */
function replaceInline(line: string, tables: Record<string, Record<string, unknown>>, placed: Set<string>) {
  const match = INLINE_ENTRY.exec(line);
  if (!match) return line;
  const [head, indent = '', key = '', equals = ''] = match;
  const name = tableHeader(`[${key}]`)?.[0];
  if (name === undefined || !Object.hasOwn(tables, name) || placed.has(name)) return line;
  const end = inlineEnd(line, head.length - 1);
  if (end === undefined) return line; // spans lines: left, and the check after the edit refuses
  placed.add(name);
  return `${indent}${key}${equals}${inlineValue(tables[name])}${line.slice(end)}`;
}

/** The index just past the `}` that closes the `{` at `start`, skipping strings; undefined if not on this line. */
function inlineEnd(line: string, start: number): number | undefined {
  let depth = 0;
  for (let i = start; i < line.length; i++) {
    const c = line[i];
    if (c === '"' || c === "'") {
      const close = c === '"' ? /"(?:[^"\\]|\\.)*"/y : /'[^']*'/y;
      close.lastIndex = i;
      if (!close.exec(line)) return undefined;
      i = close.lastIndex - 1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    } else if (c === '#') return undefined;
  }
  return undefined;
}

/** A value in TOML's inline syntax: tables as `{ k = v }`, everything else as smol-toml writes it. */
function inlineValue(value: unknown): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)) {
    const parts = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${stringify({ [k]: 0 }).split(' = ')[0]} = ${inlineValue(v)}`);
    return parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`;
  }
  if (Array.isArray(value)) return `[ ${value.map(inlineValue).join(', ')} ]`;
  return stringify({ v: value }).trimEnd().slice('v = '.length);
}

/**
 * A stretch of the file: a header line and its body (or the text before the first header), and the
 * comment and blank lines at its end that sit right above the next header — those describe the next
 * table, so they stay when this one is replaced.
 */
interface Block {
  header?: string[];
  lines: string[];
  trailing: string[];
}

function splitBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let current: Block = { lines: [], trailing: [] };
  for (const line of text.split('\n')) {
    const header = tableHeader(line);
    if (header) {
      blocks.push(current);
      current = { header, lines: [line], trailing: [] };
    } else current.lines.push(line);
  }
  blocks.push(current);
  for (const block of blocks) {
    let cut = block.lines.length;
    while (cut > (block.header ? 1 : 0) && /^\s*(#.*)?$/.test(block.lines[cut - 1] as string)) cut--;
    block.trailing = block.lines.slice(cut);
    block.lines = block.lines.slice(0, cut);
  }
  return blocks;
}

const HEADER = /^\s*\[(?!\[)([^\]]*)\]\s*(#.*)?$/;
const ARRAY_HEADER = /^\s*\[\[([^\]]*)\]\]\s*(#.*)?$/;
const KEY_PART = /\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*(?:\.|$)/y;

/** The dotted key of a `[table]` or `[[array]]` header line, as segments; undefined for other lines. */
function tableHeader(line: string): string[] | undefined {
  const match = ARRAY_HEADER.exec(line) ?? HEADER.exec(line);
  if (!match) return undefined;
  const key = match[1] ?? '';
  const parts: string[] = [];
  KEY_PART.lastIndex = 0;
  while (KEY_PART.lastIndex < key.length) {
    const part = KEY_PART.exec(key);
    if (!part?.[1]) return [key];
    const raw = part[1];
    parts.push(
      raw.startsWith('"') ? (JSON.parse(raw) as string) : raw.startsWith("'") ? raw.slice(1, -1) : raw,
    );
  }
  return parts;
}
