import {
  type ConfiguredServer,
  isStdioServer,
  maskEntry,
  type ServerEntry,
  transportOf,
} from '../config/index.js';

/** Quotes a word for display when a shell would split or mangle it (display only: nothing runs it). */
export function displayWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Words joined for display, each quoted when needed. */
export function displayWords(words: readonly string[]): string {
  return words.map(displayWord).join(' ');
}

/** `command args…` or the URL of an entry. */
export function targetOf(entry: ServerEntry): string {
  return isStdioServer(entry) ? displayWords([entry.command, ...(entry.args ?? [])]) : entry.url;
}

/** `KEY=VALUE` pairs of a record, comma separated. */
export function pairs(record: Record<string, string>, separator = '='): string {
  return Object.entries(record)
    .map(([k, v]) => `${k}${separator}${v}`)
    .join(', ');
}

/** Left-aligned columns with two spaces between them. */
export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** A server as `list --json` and `get --json` print it; secrets masked unless asked. */
export function serverJson(server: ConfiguredServer, showSecrets: boolean) {
  return {
    name: server.name,
    scope: server.scope,
    file: server.file,
    transport: transportOf(server.entry),
    shadowed: server.shadowed,
    disabled: server.entry.disabled === true,
    entry: showSecrets ? server.entry : maskEntry(server.entry),
  };
}

export { count } from '../internal/plural.js';
