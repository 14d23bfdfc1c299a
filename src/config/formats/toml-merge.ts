import { isDeepStrictEqual } from 'node:util';
import { parse, stringify } from 'smol-toml';

/**
 * Sets `root.NAME` tables in a TOML text while keeping the rest of the text — comments included — as it
 * was. smol-toml (like every TOML library here) drops comments when it re-serialises, and users comment
 * their Codex config, so the tables being replaced are cut out by their headers and the new ones appended.
 * The result is parsed back and compared with the intended document; if the text had a shape this cannot
 * edit (inline tables, dotted keys), the whole document is re-serialised and `commentsLost` says so.
 */
export function setTomlTables(
  text: string,
  original: Record<string, unknown>,
  root: string,
  tables: Record<string, Record<string, unknown>>,
): { text: string; commentsLost: boolean } {
  const names = new Set(Object.keys(tables));
  const rootTable = (original[root] ?? {}) as Record<string, unknown>;
  const expected = { ...original, [root]: { ...rootTable, ...tables } };

  const kept: string[] = [];
  let dropping = false;
  for (const line of text.split('\n')) {
    const header = tableHeader(line);
    if (header) dropping = header[0] === root && header[1] !== undefined && names.has(header[1]);
    if (!dropping) kept.push(line);
  }
  let head = kept.join('\n').replace(/\s*$/, '');
  if (head !== '') head += '\n\n';
  const edited = `${head}${stringify({ [root]: tables })}`.replace(/\s*$/, '\n');
  try {
    if (isDeepStrictEqual(parse(edited), parse(stringify(expected))))
      return { text: edited, commentsLost: false };
  } catch {
    // The cut-and-append produced invalid TOML (e.g. a name also defined inline); fall through.
  }
  return { text: stringify(expected).replace(/\s*$/, '\n'), commentsLost: true };
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
