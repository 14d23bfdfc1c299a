// The engines only some users run (SQLite, PostgreSQL and MySQL schemas, the shared index, Redis for replicas) are
// optional peer dependencies: a plain install leaves them out (~50 MB), and the feature that needs one says which
// package to add, in one line, when it is not there.
import { McpkitError } from '../errors/index.js';

/** The optional packages and the feature of each, for the message. */
const NEEDED_FOR = {
  'sql.js': 'SQLite schemas (--db sqlite:…)',
  pg: 'PostgreSQL (--db postgres://…, --store postgres://…)',
  mysql2: 'MySQL and MariaDB schemas (--db mysql://…)',
  redis: 'shared state for replicas (--state redis://…)',
} as const;

/** A package mcpkit loads only for the feature that needs it. */
export type OptionalPackage = keyof typeof NEEDED_FOR;

/**
 * Imports an optional package through `load` (a literal `import('…')`, so types and the bundler follow it); when
 * the package is not installed, throws `DEPENDENCY_MISSING` naming it and the command that adds it.
 * Example: `const { default: pg } = await importOptional('pg', () => import('pg'));`
 */
export async function importOptional<T>(name: OptionalPackage, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isMissing(error, name)) throw error;
    throw new McpkitError(
      'DEPENDENCY_MISSING',
      `${NEEDED_FOR[name]} needs the package ${name}, which is not installed: add it where mcpkit is (npm install -g ${name} beside a global mcpkit, npm install ${name} in a project)`,
      { cause: error },
    );
  }
}

/** True when `error` says that `name` itself (not something it imports) cannot be found. */
function isMissing(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  const message = error instanceof Error ? error.message : '';
  return message.includes(`'${name}'`) || message.includes(`'${name}/`);
}
