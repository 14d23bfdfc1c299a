import { McpkitError } from '../errors/index.js';
import { type JsonDocument, readJsonDocument, writeJsonEdits } from '../internal/json-document.js';
import { formatKeyHints, keyHints } from './key-hints.js';
import { type ConfigLocationOptions, configFile, SCOPES, type Scope } from './paths.js';
import {
  checkServerName,
  formatIssues,
  formatJsonPath,
  parseServerEntry,
  type ServerEntry,
} from './schema.js';

/** The key that holds the servers in `.mcp.json` and in the user config. */
export const SERVERS_KEY = 'mcpServers';

/** A server as configured: its entry (unexpanded), where it came from and whether a project entry hides it. */
export interface ConfiguredServer {
  name: string;
  scope: Scope;
  file: string;
  entry: ServerEntry;
  /** True when the same name in a higher-precedence scope wins. */
  shadowed: boolean;
}

/** Both scopes read: every valid entry, and one warning per entry (or file part) that was skipped. */
export interface LoadedConfig {
  servers: ConfiguredServer[];
  warnings: string[];
  files: Record<Scope, string>;
}

/**
 * Reads both scopes. An invalid entry is skipped with a warning naming the file and JSON path; a file
 * that is not valid JSON throws CONFIG_PARSE (line:col) because guessing at a broken file loses data.
 */
export async function loadConfig(options: ConfigLocationOptions = {}): Promise<LoadedConfig> {
  const files = { project: configFile('project', options), user: configFile('user', options) };
  const servers: ConfiguredServer[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  for (const scope of SCOPES) {
    const doc = await readJsonDocument(files[scope]);
    for (const { name, value } of serverRecords(doc, warnings)) {
      const checked = checkNamedEntry(name, value);
      if (!checked.ok) {
        warnings.push(`${doc.file}: ${checked.message}; server "${name}" skipped`);
        continue;
      }
      servers.push({ name, scope, file: doc.file, entry: checked.entry, shadowed: seen.has(name) });
      seen.add(name);
    }
  }
  return { servers, warnings, files };
}

/** The servers in effect: one per name, project before user, in file order. */
export function effectiveServers(config: LoadedConfig): ConfiguredServer[] {
  return config.servers.filter((server) => !server.shadowed);
}

/**
 * Finds a server by name. Without a scope the effective one; with a scope exactly that one.
 * Throws SERVER_NOT_FOUND naming the scopes looked at.
 */
export function findServer(config: LoadedConfig, name: string, scope?: Scope): ConfiguredServer {
  const found = config.servers.find((s) => s.name === name && (scope ? s.scope === scope : !s.shadowed));
  if (!found) {
    const where = scope
      ? `${scope} scope (${config.files[scope]})`
      : `${config.files.project} or ${config.files.user}`;
    throw new McpkitError('SERVER_NOT_FOUND', `no server named "${name}" in ${where}; see "mcpkit list"`, {
      server: name,
    });
  }
  return found;
}

/** Options for {@link addServers}. */
export interface AddServersOptions extends ConfigLocationOptions {
  scope: Scope;
  /** Replace entries that exist; otherwise an existing name fails with SERVER_EXISTS. */
  force?: boolean;
}

/**
 * Writes entries into a scope's file in one atomic write. Each entry is validated first; nothing is
 * written when any fails. Entries keep their position when replaced; new ones go last.
 */
export async function addServers(
  entries: readonly { name: string; entry: unknown }[],
  options: AddServersOptions,
): Promise<{ file: string; replaced: string[] }> {
  const doc = await readJsonDocument(configFile(options.scope, options));
  const existing = writableServers(doc);
  const replaced: string[] = [];
  for (const { name, entry } of entries) {
    const checked = checkNamedEntry(name, entry);
    if (!checked.ok) {
      throw new McpkitError('CONFIG_INVALID', `server "${name}": ${checked.message}`, { server: name });
    }
    if (Object.hasOwn(existing, name)) {
      if (!options.force) {
        throw new McpkitError(
          'SERVER_EXISTS',
          `server "${name}" already exists in ${options.scope} scope (${doc.file}); use --force to replace it`,
          { server: name, file: doc.file },
        );
      }
      replaced.push(name);
    }
  }
  await writeJsonEdits(
    doc,
    entries.map(({ name, entry }) => ({ path: [SERVERS_KEY, name], value: entry })),
  );
  return { file: doc.file, replaced };
}

/** Removes a server from a scope's file, keeping everything else in it. */
export async function removeServerFrom(name: string, options: ConfigLocationOptions & { scope: Scope }) {
  const doc = await readJsonDocument(configFile(options.scope, options));
  if (!Object.hasOwn(writableServers(doc), name)) {
    throw new McpkitError(
      'SERVER_NOT_FOUND',
      `no server named "${name}" in ${options.scope} scope (${doc.file})`,
      {
        server: name,
        file: doc.file,
      },
    );
  }
  await writeJsonEdits(doc, [{ path: [SERVERS_KEY, name], value: undefined }]);
  return { file: doc.file };
}

/** Validates a name and entry; a failure message carries the JSON path of each problem. */
export function checkNamedEntry(
  name: string,
  value: unknown,
): { ok: true; entry: ServerEntry } | { ok: false; message: string } {
  const nameProblem = checkServerName(name);
  if (nameProblem)
    return { ok: false, message: `${formatJsonPath([SERVERS_KEY, name])}: invalid name: ${nameProblem}` };
  const parsed = parseServerEntry(value);
  if (parsed.ok) return parsed;
  const hints = keyHints(value);
  const message = formatIssues(parsed.issues, [SERVERS_KEY, name]);
  return {
    ok: false,
    message: hints.length > 0 ? `${message}; ${formatKeyHints(hints, [SERVERS_KEY, name])}` : message,
  };
}

function serverRecords(doc: JsonDocument, warnings: string[]): { name: string; value: unknown }[] {
  const servers = doc.value[SERVERS_KEY];
  if (servers === undefined) return [];
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    warnings.push(`${doc.file}: ${SERVERS_KEY}: must be an object; no servers loaded from this file`);
    return [];
  }
  return Object.entries(servers).map(([name, value]) => ({ name, value }));
}

function writableServers(doc: JsonDocument): Record<string, unknown> {
  const servers = doc.value[SERVERS_KEY];
  if (servers === undefined) return {};
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    throw new McpkitError(
      'CONFIG_INVALID',
      `${doc.file}: ${SERVERS_KEY}: must be an object; fix the file by hand, mcpkit will not overwrite it`,
      { file: doc.file },
    );
  }
  return servers as Record<string, unknown>;
}

/**
 * The scopes whose files hold a key `name` under `mcpServers`, valid or not: removing a broken entry
 * must work even though loading skips it.
 */
export async function scopesDefining(name: string, options: ConfigLocationOptions = {}): Promise<Scope[]> {
  const found: Scope[] = [];
  for (const scope of SCOPES) {
    const doc = await readJsonDocument(configFile(scope, options));
    const servers = doc.value[SERVERS_KEY];
    if (typeof servers === 'object' && servers !== null && Object.hasOwn(servers, name)) found.push(scope);
  }
  return found;
}
