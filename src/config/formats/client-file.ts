import { parse, stringify, TomlError } from 'smol-toml';
import { McpkitError } from '../../errors/index.js';
import { editJsonText, type JsonEdit, readJsonDocument } from '../../internal/json-document.js';
import { readTextIfExists } from '../../internal/text-file.js';
import { setTomlTables } from './toml-merge.js';
import type { ClientFormat } from './types.js';

/** A client's config file as read: text and parsed value ({} when the file does not exist). */
export interface ClientDocument {
  file: string;
  exists: boolean;
  text: string;
  value: Record<string, unknown>;
}

/** What an export does to one entry of the client's file. */
export interface EntryPlan {
  name: string;
  /** Where the entry sits in the client's file. */
  path: readonly string[];
  status: 'added' | 'replaced' | 'unchanged';
  /** The entry as it will read in the client's file, keys mcpkit does not know included. */
  native: Record<string, unknown>;
  /** For JSON files: the smallest edits that turn the old entry into `native`. */
  edits: JsonEdit[];
}

/** Reads a client's file in its syntax; a syntax error throws CONFIG_PARSE with line:col. */
export async function readClientDocument(format: ClientFormat, file: string): Promise<ClientDocument> {
  if (format.syntax !== 'toml') return readJsonDocument(file, { jsonc: format.syntax === 'jsonc' });
  const text = await readTextIfExists(file);
  if (text === undefined) return { file, exists: false, text: '', value: {} };
  try {
    return { file, exists: true, text, value: parse(text) as Record<string, unknown> };
  } catch (cause) {
    if (!(cause instanceof TomlError)) throw cause;
    const what = cause.message.split('\n')[0]?.replace(/^Invalid TOML document: /, '') ?? 'invalid';
    throw new McpkitError(
      'CONFIG_PARSE',
      `${file}:${cause.line}:${cause.column}: invalid TOML (${what}); fix the file by hand, mcpkit will not overwrite it`,
      { cause, file },
    );
  }
}

/** The servers as a stand-alone snippet of the client's file (what `export` prints). */
export function renderServers(
  format: ClientFormat,
  servers: Record<string, Record<string, unknown>>,
): string {
  const doc = nest(format.serversPath, servers);
  return format.syntax === 'toml' ? stringify(doc) : `${JSON.stringify(doc, null, 2)}\n`;
}

/**
 * The client's file with these entries written (added, or edited in place), everything else kept. Returns
 * the new text and notes about anything that could not be kept.
 */
export function mergeServers(
  format: ClientFormat,
  doc: ClientDocument,
  plans: readonly EntryPlan[],
): { text: string; notes: string[] } {
  const changed = plans.filter((plan) => plan.status !== 'unchanged');
  if (changed.length === 0) return { text: doc.text, notes: [] };
  if (format.syntax === 'toml') {
    const [root = 'mcp_servers'] = format.serversPath;
    // Keyed by where each entry sits: a renamed import ("my.notes" → my-notes) is replaced under its own name.
    const tables = Object.fromEntries(changed.map((plan) => [plan.path.at(-1) as string, plan.native]));
    const text = setTomlTables(doc.text, doc.value, root, tables);
    if (text === undefined) {
      throw new McpkitError(
        'IO',
        `${doc.file}: ${root} is written in a shape mcpkit cannot edit in place (the whole table inline, dotted keys, or an inline table across lines); nothing written — write each server as a [${root}.NAME] table, or paste what \`mcpkit export ${format.id}\` prints`,
        { file: doc.file },
      );
    }
    return { text, notes: [] };
  }
  const edits = changed.flatMap((plan) => plan.edits);
  return { text: editJsonText({ ...doc, jsonc: format.syntax === 'jsonc' }, edits), notes: [] };
}

function nest(path: readonly string[], value: unknown): Record<string, unknown> {
  return path.reduceRight<Record<string, unknown>>(
    (inner, key) => ({ [key]: inner }),
    value as Record<string, unknown>,
  );
}
