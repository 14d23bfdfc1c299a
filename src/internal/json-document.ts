import { applyEdits, type JSONPath, modify, type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { McpkitError } from '../errors/index.js';
import { readTextIfExists, writeFileAtomic } from './text-file.js';

/**
 * A JSON (or JSONC) file held as its text plus the parsed value. Edits go through jsonc-parser's `modify`
 * on the text, so everything we do not touch stays exactly as it was: other tools' keys, entry order,
 * comments in JSONC files (VS Code's mcp.json), even keys that JavaScript objects would reorder.
 */
export interface JsonDocument {
  readonly file: string;
  /** The text as read ("" for a file that does not exist yet). */
  readonly text: string;
  /** The parsed top-level object ({} for a missing or empty file). */
  readonly value: Record<string, unknown>;
  readonly exists: boolean;
  readonly jsonc: boolean;
}

/** Reads `file`; a missing file is an empty document. Invalid JSON throws CONFIG_PARSE with line:col. */
export async function readJsonDocument(
  file: string,
  options: { jsonc?: boolean } = {},
): Promise<JsonDocument> {
  const jsonc = options.jsonc ?? false;
  const text = await readTextIfExists(file);
  if (text === undefined) return { file, text: '', value: {}, exists: false, jsonc };
  return { file, text, value: parseJsonText(file, text, jsonc), exists: true, jsonc };
}

const FILE_HINT = '; fix the file by hand, mcpkit will not overwrite it';

/**
 * Parses JSON text, failing with `where:line:col: what` for the first syntax error. `where` is a file,
 * or a description such as "argument <json>" (then pass hint "").
 */
export function parseJsonText(
  file: string,
  text: string,
  jsonc: boolean,
  hint = FILE_HINT,
): Record<string, unknown> {
  if (text.trim() === '') return {};
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: jsonc, disallowComments: !jsonc });
  const first = errors[0];
  if (first) {
    const { line, column } = lineColumn(text, first.offset);
    throw new McpkitError(
      'CONFIG_PARSE',
      `${file}:${line}:${column}: invalid JSON (${describeParseError(first)})${hint}`,
      { file },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new McpkitError('CONFIG_PARSE', `${file}:1:1: expected a JSON object at the top level${hint}`, {
      file,
    });
  }
  return value as Record<string, unknown>;
}

/** One change: set the value at `path`, or delete it when `value` is undefined. */
export interface JsonEdit {
  path: JSONPath;
  value: unknown;
}

/** Applies edits to the document's text and returns the new text (2-space indent, trailing newline). */
export function editJsonText(doc: JsonDocument, edits: readonly JsonEdit[]): string {
  let text = doc.text.trim() === '' ? '{}' : doc.text;
  for (const edit of edits) {
    const changes = modify(text, edit.path, edit.value, {
      formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' },
    });
    text = applyEdits(text, changes);
  }
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** Applies edits and writes the file atomically. */
export async function writeJsonEdits(doc: JsonDocument, edits: readonly JsonEdit[]): Promise<void> {
  await writeFileAtomic(doc.file, editJsonText(doc, edits));
}

/** 1-based line and column of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

function describeParseError(error: ParseError): string {
  // printParseErrorCode gives identifiers such as "CommaExpected"; make them read as words.
  return printParseErrorCode(error.error)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
}
