// `mcpkit query --db` and `mcpkit index --db`: the databases' schemas read once, without a server.
import type { CodeIndex } from '../code-index/code-index.js';
import type { DbTarget } from './db-target.js';
import { readSchemaChunks } from './introspect.js';

/**
 * The index with each database's schema added (read once); a database that cannot be read is one `warn`
 * line and the index is searched without it. `report` gets a line per database read.
 */
export async function withDatabases(
  index: CodeIndex,
  targets: readonly DbTarget[],
  warn: (message: string) => void,
  report: (message: string) => void = () => undefined,
): Promise<CodeIndex> {
  const current = index;
  for (const target of targets) {
    const started = performance.now();
    try {
      const { schema, chunks } = await readSchemaChunks(target);
      current.addDocuments(target.name, chunks);
      report(
        `read ${target.name} (${target.shown}): ${schema.tables.length} tables and views, ${schema.routines.length} routines, ${schema.enums.length} enums in ${Math.round(performance.now() - started)} ms`,
      );
    } catch (error) {
      warn(`${target.name}: ${(error as Error).message}; searching code without it`);
    }
  }
  return current;
}
