// One line for each way a database can fail to be read: where (host:port, file), what happened, what to do.
// Driver messages are kept only where they say something (the server's own line); passwords never appear.
import { McpkitError } from '../../errors/index.js';
import type { DbTarget } from './db-target.js';

/** Connection and statement limits of every introspection. */
export const DB_TIMEOUTS = { connectMs: 10_000, statementMs: 15_000 } as const;

/** A driver's error as one line a user can act on. */
export function dbFailure(target: DbTarget, error: unknown): McpkitError {
  if (error instanceof McpkitError) return error;
  const e = error as { code?: string; errno?: number; message?: string };
  const where = target.address ?? target.shown;
  const what = `${target.engine === 'mysql' ? 'MySQL/MariaDB' : target.engine === 'postgres' ? 'PostgreSQL' : 'SQLite'} at ${where}`;
  const message = (e.message ?? String(error)).split('\n')[0] as string;
  const line = (() => {
    switch (e.code) {
      case 'ECONNREFUSED':
        return `cannot connect to ${what}: connection refused; is the server running and listening there?`;
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return `cannot connect to ${what}: the host name does not resolve; check the host in --db`;
      case 'ETIMEDOUT':
        return `cannot connect to ${what}: no answer within ${DB_TIMEOUTS.connectMs / 1000} s; check the host, port and firewall`;
      case '28P01':
      case '28000':
      case 'ER_ACCESS_DENIED_ERROR':
      case 'ER_DBACCESS_DENIED_ERROR':
        return `cannot log in to ${what}: ${message}; check the user and password in --db (write the password as \${VAR})`;
      case '3D000':
      case 'ER_BAD_DB_ERROR':
        return `cannot read ${what}: ${message}; check the database name in --db`;
      case '57014':
        return `cannot read the schema of ${what}: a catalog query ran over ${DB_TIMEOUTS.statementMs / 1000} s`;
      default:
        if (/timeout/i.test(message))
          return `cannot connect to ${what}: no answer within ${DB_TIMEOUTS.connectMs / 1000} s; check the host, port and firewall`;
        return `cannot read the schema of ${what}: ${message}`;
    }
  })();
  return new McpkitError('SERVER_UNAVAILABLE', line, { cause: error });
}
