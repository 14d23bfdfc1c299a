import { McpkitError } from '../errors/index.js';
import { isStdioServer, type ServerEntry } from './schema.js';

/**
 * `${VAR}` and `${VAR:-default}` references, expanded when a server is used and never when written.
 * `:-` follows POSIX: the default applies when VAR is unset or empty. Anything else in `${…}` (VS Code's
 * `${input:x}`, `${workspaceFolder}`) is not ours and stays as written.
 */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** A `${NAME}` or `${NAME:-default}` found in a string. */
export interface VariableReference {
  raw: string;
  name: string;
  default?: string;
}

/** Replaces each reference in `text` with what `replace` returns for it. */
export function replaceVariables(text: string, replace: (ref: VariableReference) => string): string {
  return text.replace(REFERENCE, (raw, name: string, fallback: string | undefined) =>
    replace(fallback === undefined ? { raw, name } : { raw, name, default: fallback }),
  );
}

/** The references in `text`, in order. */
export function findVariables(text: string): VariableReference[] {
  const found: VariableReference[] = [];
  replaceVariables(text, (ref) => {
    found.push(ref);
    return ref.raw;
  });
  return found;
}

/**
 * Expands one string against `env`: `${VAR:-default}` takes the default when VAR is unset or empty;
 * `${VAR}` unset calls `missing` (which may throw) and stays as written.
 */
export function expandVariables(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  missing: (name: string) => void,
): string {
  return replaceVariables(text, (ref) => {
    const current = Object.hasOwn(env, ref.name) ? env[ref.name] : undefined;
    if (ref.default !== undefined) return current === undefined || current === '' ? ref.default : current;
    if (current === undefined) {
      missing(ref.name);
      return ref.raw;
    }
    return current;
  });
}

/**
 * Applies `map` to every string of an entry that may hold references (command, args, env values, cwd,
 * url, header values), passing the JSON path of each for messages.
 */
export function mapEntryStrings<T extends ServerEntry>(
  entry: T,
  map: (value: string, path: string) => string,
): T {
  const mapRecord = (record: Record<string, string> | undefined, key: string) =>
    record === undefined
      ? undefined
      : Object.fromEntries(Object.entries(record).map(([k, v]) => [k, map(v, `${key}.${k}`)]));
  if (isStdioServer(entry)) {
    const out = { ...entry, command: map(entry.command, 'command') };
    if (entry.args) out.args = entry.args.map((arg, i) => map(arg, `args[${i}]`));
    const env = mapRecord(entry.env, 'env');
    if (env) out.env = env;
    if (entry.cwd !== undefined) out.cwd = map(entry.cwd, 'cwd');
    return out;
  }
  const out = { ...entry, url: map(entry.url, 'url') };
  const headers = mapRecord(entry.headers, 'headers');
  if (headers) out.headers = headers;
  if (entry.oauth) {
    const oauth: Record<string, unknown> = { ...entry.oauth };
    for (const [key, value] of Object.entries(oauth))
      if (typeof value === 'string') oauth[key] = map(value, `oauth.${key}`);
    out.oauth = oauth as typeof entry.oauth;
  }
  return out;
}

/**
 * Expands the references of one server's entry against `env`. Every unset variable without a default is
 * collected, and the error names each one, where it is used and the server. `NAME: "${NAME:-}"` in `env`
 * passes NAME through when it is set and leaves it out when not (Codex's `env_vars`), rather than
 * setting it to "".
 */
export function expandServerEntry<T extends ServerEntry>(
  name: string,
  entry: T,
  env: Readonly<Record<string, string | undefined>>,
): T {
  const missing: string[] = [];
  const expanded = mapEntryStrings(withoutUnsetPassThrough(entry, env), (value, path) =>
    expandVariables(value, env, (name) => missing.push(`${name} (in ${path})`)),
  );
  if (missing.length > 0) {
    const list = missing.join(', ');
    throw new McpkitError(
      'CONFIG_MISSING_VAR',
      `server "${name}": environment variable ${list} is not set; set it or give a default with \${NAME:-default}`,
      { server: name },
    );
  }
  return expanded;
}

function withoutUnsetPassThrough<T extends ServerEntry>(
  entry: T,
  env: Readonly<Record<string, string | undefined>>,
): T {
  if (!isStdioServer(entry) || !entry.env) return entry;
  const kept = Object.entries(entry.env).filter(
    ([key, value]) => !(value === `\${${key}:-}` && env[key] === undefined),
  );
  if (kept.length === Object.keys(entry.env).length) return entry;
  return { ...entry, env: Object.fromEntries(kept) };
}
