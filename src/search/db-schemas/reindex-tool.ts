// The `reindex_db` tool: re-reads the databases' schemas now, or says at once that a refresh is running.
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { failedResult, textResult } from '../../serve/index.js';
import { type DbSchemas, REFRESH_BUSY } from './db-schemas.js';

/** `reindex_db`: listed by a search server started with `--db`. */
export const REINDEX_DB_TOOL: Tool = {
  name: 'reindex_db',
  description:
    'Read the database schemas again (after a migration), so search finds new tables and columns. Answers at ' +
    'once when a refresh is already running; otherwise says how long it took and what changed.',
  inputSchema: { type: 'object', properties: {} },
  annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
};

/** Runs `reindex_db`: the refresh's lines, an error result when a database could not be read. */
export async function reindexDb(schemas: DbSchemas): Promise<CallToolResult> {
  const result = schemas.refresh();
  if (result === REFRESH_BUSY) return textResult(REFRESH_BUSY);
  const report = await result;
  const text = `Re-read ${report.lines.length === 1 ? 'the database schema' : `${report.lines.length} database schemas`} in ${report.ms} ms:\n${report.lines.join('\n')}`;
  return report.failed ? failedResult(text) : textResult(text);
}
