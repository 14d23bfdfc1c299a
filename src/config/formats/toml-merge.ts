import { isDeepStrictEqual } from 'node:util';
import { parse, stringify } from 'smol-toml';

/**
 * Sets `root.NAME` tables in a TOML text while keeping the rest of the text — comments included — as it
 * was. smol-toml (like every TOML library here) drops comments when it re-serialises, and users comment
 * their Codex config, so a replaced table is cut out by its headers and its new text put where it stood:
 * the comment above it stays above it and the tables around it (`[profiles.*]`) keep their places. New
 * tables go after the last `root` table. The result is parsed back and compared with the intended
 * document; if the text had a shape this cannot edit (inline tables, dotted keys), the whole document is
 * re-serialised and `commentsLost` says so.
 */
export function setTomlTables(
  text: string,
  original: Record<string, unknown>,
  root: string,
  tables: Record<string, Record<string, unknown>>,
): { text: string; commentsLost: boolean } {
  if (Object.keys(tables).length === 0) return { text, commentsLost: false };
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
    } else out.push(...block.lines);
    if (name !== undefined) afterRoot = out.length;
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
    if (isDeepStrictEqual(parse(edited), parse(stringify(expected))))
      return { text: edited, commentsLost: false };
  } catch {
    // The edit produced invalid TOML (e.g. a name also defined inline); fall through.
  }
  return { text: stringify(expected).replace(/\s*$/, '\n'), commentsLost: true };
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
