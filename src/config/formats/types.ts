import type { ServerEntry } from '../schema.js';

/** The MCP clients whose config files mcpkit imports from and exports to. */
export const CLIENT_IDS = [
  'claude-code',
  'claude-desktop',
  'cursor',
  'vscode',
  'codex',
  'gemini',
  'windsurf',
  'cline',
] as const;
/** One of {@link CLIENT_IDS}: `claude-code`, `cursor`, `vscode`, … */
export type ClientId = (typeof CLIENT_IDS)[number];

/** What a client's file locations depend on; tests pass their own HOME and platform. */
export interface ClientContext {
  cwd: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
}

/** One server as a client's file holds it, before conversion. */
export interface NativeServer {
  name: string;
  value: unknown;
  /** Where it sits in the source file, for messages (e.g. `projects["/x"].mcpServers.db`). */
  path: (string | number)[];
}

/** A conversion's result: the value (absent when it cannot be expressed) and what did not carry over. */
export interface Conversion<T> {
  value?: T;
  notes: string[];
  /** From `fromNative`: the entry's keys mcpkit does not model; an export that replaces the entry keeps them. */
  unknownKeys?: string[];
}

/** A client's config format: where its files are, how its entries map to and from mcpkit's. */
export interface ClientFormat {
  id: ClientId;
  label: string;
  syntax: 'json' | 'jsonc' | 'toml';
  /** Files to import from, most specific first; the first that exists is read. */
  importPaths(ctx: ClientContext): string[];
  /** The file `export --write` merges into. */
  exportPath(ctx: ClientContext): string;
  /** Where the servers map lives in the file. */
  serversPath: readonly string[];
  /** The servers a parsed file holds, and notes about anything around them. */
  readServers(doc: Record<string, unknown>, ctx: ClientContext): { servers: NativeServer[]; notes: string[] };
  /** A native entry as an mcpkit entry (validated by the caller). */
  fromNative(value: unknown): Conversion<Record<string, unknown>>;
  /** An mcpkit entry as the client writes it. */
  toNative(entry: ServerEntry): Conversion<Record<string, unknown>>;
  /**
   * A string of the client's file as mcpkit writes it (`${env:X}` → `${X}`); an export keeps the client's
   * own spelling of a string whenever both read the same.
   */
  importText(text: string): string;
  /** Where the client keeps an existing entry of this name; by default `serversPath` + name. */
  entryPath?(doc: Record<string, unknown>, ctx: ClientContext, name: string): readonly string[];
  /**
   * True when the client reads mcpkit's project file (`.mcp.json`) as its own: project-scope servers are
   * already there and are never copied into the client's user file.
   */
  readsProjectFile?: boolean;
}

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
