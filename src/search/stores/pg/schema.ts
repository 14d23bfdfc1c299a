// The tables of a shared code index in PostgreSQL. Several repositories live in one database, each a row of
// mcpkit_repos; a chunk's row never changes once written (a changed file gets new chunks), so what a search read
// by chunk id stays true of that chunk. Every write transaction bumps its repository's generation and stamps the
// chunks it adds (and the ids it removes, in mcpkit_removed) with it: a reader that knows generation G fetches
// exactly what changed since. A repository's corpus vectors (store-vectors.ts) are its model (mcpkit_models) and a
// row per chunk (mcpkit_vectors), stamped with generations the same way.
import type { PoolClient } from 'pg';

/** Bumped when the tables change shape; a store of another version is refused with a line saying so. */
export const STORE_VERSION = 2;

const DDL = `
CREATE TABLE IF NOT EXISTS mcpkit_store (version int NOT NULL);
CREATE TABLE IF NOT EXISTS mcpkit_repos (
  id serial PRIMARY KEY,
  name text NOT NULL UNIQUE,
  root text NOT NULL,
  docs bigint NOT NULL DEFAULT 0,
  total_length float8 NOT NULL DEFAULT 0,
  generation bigint NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS mcpkit_files (
  repo int NOT NULL REFERENCES mcpkit_repos ON DELETE CASCADE,
  path text NOT NULL,
  hash text NOT NULL,
  twin boolean NOT NULL,
  indexed boolean NOT NULL,
  PRIMARY KEY (repo, path)
);
CREATE TABLE IF NOT EXISTS mcpkit_chunks (
  id bigserial PRIMARY KEY,
  repo int NOT NULL REFERENCES mcpkit_repos ON DELETE CASCADE,
  path text NOT NULL,
  start_line int NOT NULL,
  end_line int NOT NULL,
  language text NOT NULL,
  symbols text NOT NULL,
  content text NOT NULL,
  length real NOT NULL,
  postings text NOT NULL,
  generation bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS mcpkit_chunks_path ON mcpkit_chunks (repo, path);
CREATE INDEX IF NOT EXISTS mcpkit_chunks_generation ON mcpkit_chunks (repo, generation, id);
CREATE TABLE IF NOT EXISTS mcpkit_removed (
  repo int NOT NULL REFERENCES mcpkit_repos ON DELETE CASCADE,
  generation bigint NOT NULL,
  doc bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS mcpkit_removed_generation ON mcpkit_removed (repo, generation);
CREATE TABLE IF NOT EXISTS mcpkit_models (
  repo int PRIMARY KEY REFERENCES mcpkit_repos ON DELETE CASCADE,
  generation bigint NOT NULL,
  dimensions int NOT NULL,
  terms text NOT NULL,
  idf bytea NOT NULL,
  basis bytea NOT NULL
);
CREATE TABLE IF NOT EXISTS mcpkit_vectors (
  chunk bigint PRIMARY KEY REFERENCES mcpkit_chunks ON DELETE CASCADE,
  repo int NOT NULL,
  generation bigint NOT NULL,
  vector bytea NOT NULL
);
CREATE INDEX IF NOT EXISTS mcpkit_vectors_generation ON mcpkit_vectors (repo, generation, chunk);
`;

/** The versions a store is brought to this one's from by adding tables (version 1 had no vectors). */
const ADDITIVE = new Set([1]);

/** The advisory lock key of the tables' creation (two first indexers must not both create them). */
const SCHEMA_LOCK = 'mcpkit-search-store';

/** Creates the tables if they are not there; a store of another version is an error naming both versions. */
export async function ensureSchema(client: PoolClient): Promise<void> {
  // Tables already there are not created again: DDL would wait for every open write of another indexer.
  const existing = await storedVersion(client);
  if (existing !== undefined && !ADDITIVE.has(existing)) return checkVersion(existing);
  await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [SCHEMA_LOCK]);
  try {
    await client.query(DDL);
    const version = await storedVersion(client);
    if (version === undefined) await client.query('INSERT INTO mcpkit_store VALUES ($1)', [STORE_VERSION]);
    else if (ADDITIVE.has(version))
      await client.query('UPDATE mcpkit_store SET version = $1', [STORE_VERSION]);
    else checkVersion(version);
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [SCHEMA_LOCK]);
  }
}

/** The version of the store's tables, or undefined when there are none yet. */
async function storedVersion(client: PoolClient): Promise<number | undefined> {
  const { rows: table } = await client.query<{ found: boolean }>(
    "SELECT to_regclass('mcpkit_store') IS NOT NULL AS found",
  );
  if (!table[0]?.found) return undefined;
  const { rows } = await client.query<{ version: number }>('SELECT version FROM mcpkit_store LIMIT 1');
  return rows[0]?.version;
}

function checkVersion(version: number | undefined): void {
  if (version !== undefined && version !== STORE_VERSION)
    throw new Error(
      `the store holds a version ${version} index; this mcpkit writes version ${STORE_VERSION} (drop the mcpkit_* tables to start again)`,
    );
}

/** The advisory lock key of one repository's writers: one indexes it at a time, the others wait. */
export const repoLockKey = (name: string) => `mcpkit-search-repo:${name}`;
