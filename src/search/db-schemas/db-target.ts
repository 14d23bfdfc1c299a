// Which database a `--db` names: its engine, where it is, the name its chunks go under, and how it is shown
// (never with its password).
import { basename, extname, resolve } from 'node:path';
import { expandVariables } from '../../config/variables.js';
import { McpkitError } from '../../errors/index.js';

/** The engines whose schemas code search reads. */
export type DbEngine = 'postgres' | 'mysql' | 'sqlite';

/** A database to introspect, parsed from a `--db` value. */
export interface DbTarget {
  /** The name its chunks go under: `db/<name>/<schema>.<object>`. */
  name: string;
  engine: DbEngine;
  /** The connection URL with `${VAR}` expanded (holds the password: never print it), or the SQLite file. */
  location: string;
  /** How messages name it: `postgres://user@host:5432/shop`, without the password. */
  shown: string;
  /** host:port of a server engine, for the one line a refused connection gets. */
  address?: string;
}

const NAMED = /^([A-Za-z][\w-]*)=(.+)$/s;
const SCHEMES: Record<string, DbEngine> = {
  'postgres:': 'postgres',
  'postgresql:': 'postgres',
  'mysql:': 'mysql',
  'mariadb:': 'mysql',
  'sqlite:': 'sqlite',
};

/**
 * Parses a `--db` value: `[NAME=]postgres://…`, `[NAME=]mysql://…` (MariaDB too), or a SQLite file (a path or
 * `sqlite:PATH`). `${VAR}` and `${VAR:-default}` are expanded from `env`, so a password need not be written on
 * the command line. The name defaults to the database's (the URL's path, the file's base name).
 */
export function parseDbTarget(
  spec: string,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): DbTarget {
  const named = NAMED.exec(spec);
  const raw = named && !/^[a-z]+:\/\//i.test(spec) ? (named[2] as string) : spec;
  const missing: string[] = [];
  const expanded = expandVariables(raw, env, (name) => missing.push(name));
  const label = named ? (named[1] as string) : undefined;
  if (missing.length > 0)
    throw new McpkitError(
      'INVALID_ARGUMENT',
      `--db ${redact(raw)}: ${missing.join(', ')} is not set; set it in the environment or write the value`,
    );
  const scheme = /^([a-z][a-z0-9+.-]*:)/i.exec(expanded)?.[1]?.toLowerCase();
  const engine = scheme ? SCHEMES[scheme] : undefined;
  if (scheme && scheme.length > 2 && !engine)
    throw new McpkitError(
      'INVALID_ARGUMENT',
      `--db ${redact(raw)}: unknown database scheme "${scheme}"; use postgres://, mysql:// (MariaDB too) or a SQLite file`,
    );
  if (!engine || engine === 'sqlite') {
    const file = resolve(cwd, expanded.replace(/^sqlite:(\/\/)?/i, ''));
    const name = label ?? basename(file, extname(file));
    return { name: safeName(name), engine: 'sqlite', location: file, shown: file };
  }
  let url: URL;
  try {
    url = new URL(expanded);
  } catch {
    throw new McpkitError(
      'INVALID_ARGUMENT',
      `--db ${redact(raw)} is not a valid URL; write it as ${engine}://user:\${PASSWORD}@host:port/database`,
    );
  }
  if (!url.hostname)
    throw new McpkitError(
      'INVALID_ARGUMENT',
      `--db ${redact(raw)} names no host; write ${engine}://user@host:port/database`,
    );
  const port = url.port || (engine === 'postgres' ? '5432' : '3306');
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const user = url.username ? `${decodeURIComponent(url.username)}@` : '';
  const address = `${url.hostname}:${port}`;
  return {
    name: safeName(label ?? (database || url.hostname)),
    engine,
    location: expanded,
    shown: `${engine}://${user}${address}/${database}`,
    address,
  };
}

/** A name that is one path segment. */
const safeName = (name: string) => name.replace(/[^\w.-]+/g, '_') || 'db';

/** A URL as written, its password (a literal one) replaced: for messages about a value that did not parse. */
export function redact(text: string): string {
  // A `${VAR}` reference is no secret, and says where the password comes from.
  return text.replace(/(\/\/[^:/@\s]*:)([^@\s]*)@/, (whole, user: string, password: string) =>
    /^\$\{\w+\}$/.test(password) ? whole : `${user}***@`,
  );
}

/**
 * The `--db` values that parse; each that does not is one `warn` line and is left out, so the code index
 * still serves.
 */
export function parseDbTargets(
  specs: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  warn: (message: string) => void,
): DbTarget[] {
  const targets: DbTarget[] = [];
  for (const spec of specs) {
    try {
      const target = parseDbTarget(spec, env, cwd);
      if (targets.some((t) => t.name === target.name))
        warn(
          `--db ${target.shown}: a database named "${target.name}" is given already; write NAME=URL to tell them apart`,
        );
      else targets.push(target);
    } catch (error) {
      warn(`${(error as Error).message}; searching code without it`);
    }
  }
  return targets;
}
