// One database's schema as search chunks, whatever its engine; each driver is loaded only when a --db needs it.
import type { Chunk } from '../chunks/chunker.js';
import type { DbTarget } from './db-target.js';
import { schemaChunks } from './schema-chunks.js';
import type { DbSchema } from './schema-model.js';

/** Reads a database's schema with the driver of its engine (loaded on first use). */
export async function introspect(target: DbTarget): Promise<DbSchema> {
  if (target.engine === 'postgres') return (await import('./postgres-schema.js')).introspectPostgres(target);
  if (target.engine === 'mysql') return (await import('./mysql-schema.js')).introspectMysql(target);
  return (await import('./sqlite-schema.js')).introspectSqlite(target);
}

/** A database's schema read and cut into chunks under `db/<name>/`. */
export async function readSchemaChunks(target: DbTarget): Promise<{ schema: DbSchema; chunks: Chunk[] }> {
  const schema = await introspect(target);
  return { schema, chunks: schemaChunks(target.name, schema) };
}
