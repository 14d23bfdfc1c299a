// Where a `--store postgres://…` points, a pool of connections to it, and the one line each way of failing to reach
// it gets (host:port, the server's own line, what to do; never the password).
import type { Pool, PoolClient } from 'pg';
import { McpkitError } from '../../../errors/index.js';
import { importOptional } from '../../../internal/optional-dependency.js';

/** Connection and statement limits of the store's connections. */
const TIMEOUTS = { connectMs: 10_000, statementMs: 60_000 } as const;

/** A parsed `--store` URL. */
export interface StoreTarget {
  /** The URL with its password (never print it). */
  url: string;
  /** host:port, for messages. */
  address: string;
}

/** Parses `--store`: a postgres:// (or postgresql://) URL; anything else is an INVALID_ARGUMENT saying how to write it. */
export function parseStoreUrl(spec: string): StoreTarget {
  let url: URL | undefined;
  try {
    url = new URL(spec);
  } catch {
    url = undefined;
  }
  if (!url || !/^postgres(ql)?:$/i.test(url.protocol) || !url.hostname)
    throw new McpkitError(
      'INVALID_ARGUMENT',
      `--store ${redact(spec)} is not a PostgreSQL URL; write it as postgres://user:password@host:port/database`,
    );
  return { url: spec, address: `${url.hostname}:${url.port || '5432'}` };
}

/** A URL with its password replaced by `***`. */
function redact(spec: string): string {
  return spec.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}

/** A pool of connections to the store; the first connection is made (and failures reported) by {@link checkout}. */
export async function storePool(target: StoreTarget, max: number): Promise<Pool> {
  const { default: pg } = await importOptional('pg', () => import('pg'));
  const pool = new pg.Pool({
    connectionString: target.url,
    max,
    connectionTimeoutMillis: TIMEOUTS.connectMs,
    statement_timeout: TIMEOUTS.statementMs,
    application_name: 'mcpkit-search-store',
  });
  // An idle connection dropped by the server must not crash the process: the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

/** A connection from the pool, or the one line that says why there is none. */
export async function checkout(pool: Pool, target: StoreTarget): Promise<PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw storeFailure(target, error);
  }
}

/** A driver's error as one line a user can act on. */
export function storeFailure(target: StoreTarget, error: unknown): McpkitError {
  if (error instanceof McpkitError) return error;
  const e = error as { code?: string; message?: string };
  const what = `PostgreSQL at ${target.address}`;
  const message = (e.message ?? String(error)).split('\n')[0] as string;
  const line = (() => {
    switch (e.code) {
      case 'ECONNREFUSED':
        return `cannot connect to ${what}: connection refused; is the server running and listening there? (--store)`;
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return `cannot connect to ${what}: the host name does not resolve; check the host in --store`;
      case '28P01':
      case '28000':
        return `cannot log in to ${what}: ${message}; check the user and password in --store`;
      case '3D000':
        return `cannot use ${what}: ${message}; create the database or check its name in --store`;
      default:
        if (/timeout|ETIMEDOUT/i.test(`${e.code} ${message}`))
          return `cannot connect to ${what}: no answer within ${TIMEOUTS.connectMs / 1000} s; check the host, port and firewall`;
        return `the code index in ${what} failed: ${message}`;
    }
  })();
  return new McpkitError('SERVER_UNAVAILABLE', line, { cause: error });
}
