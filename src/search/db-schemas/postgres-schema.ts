// PostgreSQL's schema from its catalogs, in one read-only transaction with statement and connection timeouts.
import type { Client as PgClient } from 'pg';
import { importOptional } from '../../internal/optional-dependency.js';
import { DB_TIMEOUTS, dbFailure } from './db-failure.js';
import type { DbTarget } from './db-target.js';
import type { DbColumn, DbEnum, DbRoutine, DbSchema, DbTable } from './schema-model.js';

/** Schemas that are PostgreSQL's own, never the application's. */
const SYSTEM = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%'`;
/** Objects an extension created (PostGIS's tables, pgcrypto's functions) are not the application's. */
const NOT_EXTENSION = (oid: string) =>
  `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = ${oid} AND d.deptype = 'e')`;
const RELS = `SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition AND ${SYSTEM} AND ${NOT_EXTENSION('c.oid')}`;

const TABLES = `SELECT c.oid::text AS oid, n.nspname AS schema, c.relname AS name, c.relkind AS kind,
    obj_description(c.oid, 'pg_class') AS comment,
    CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid, true) END AS definition
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid IN (${RELS})`;

const COLUMNS = `SELECT a.attrelid::text AS oid, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
    NOT a.attnotnull AS nullable, pg_get_expr(d.adbin, d.adrelid) AS "default",
    col_description(a.attrelid, a.attnum) AS comment
  FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
  WHERE a.attnum > 0 AND NOT a.attisdropped AND a.attrelid IN (${RELS})
  ORDER BY a.attrelid, a.attnum`;

const KEY_NAMES = (
  keys: string,
  rel: string,
) => `ARRAY(SELECT a.attname FROM unnest(${keys}) WITH ORDINALITY k(n, o)
    JOIN pg_attribute a ON a.attrelid = ${rel} AND a.attnum = k.n ORDER BY k.o)::text[]`;
const CONSTRAINTS = `SELECT con.conrelid::text AS oid, con.conname AS name, con.contype AS type,
    pg_get_constraintdef(con.oid, true) AS def, ${KEY_NAMES('con.conkey', 'con.conrelid')} AS columns,
    fn.nspname AS ref_schema, fc.relname AS ref_table, ${KEY_NAMES('con.confkey', 'con.confrelid')} AS ref_columns,
    con.confdeltype AS on_delete
  FROM pg_constraint con LEFT JOIN pg_class fc ON fc.oid = con.confrelid
    LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
  WHERE con.contype IN ('p', 'f', 'c') AND con.conrelid IN (${RELS}) ORDER BY con.conrelid, con.conname`;

const INDEXES = `SELECT i.indrelid::text AS oid, ic.relname AS name, i.indisunique AS unique,
    pg_get_expr(i.indpred, i.indrelid) AS "where",
    ARRAY(SELECT pg_get_indexdef(i.indexrelid, k, true) FROM generate_series(1, i.indnkeyatts) k ORDER BY k)::text[] AS columns
  FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
  WHERE NOT i.indisprimary AND i.indrelid IN (${RELS}) ORDER BY i.indrelid, ic.relname`;

const ROUTINES = `SELECT n.nspname AS schema, p.proname AS name, p.prokind AS kind,
    pg_get_function_arguments(p.oid) AS arguments,
    CASE WHEN p.prokind = 'p' THEN NULL ELSE pg_get_function_result(p.oid) END AS returns,
    l.lanname AS language, obj_description(p.oid, 'pg_proc') AS comment, p.prosrc AS body
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
  WHERE p.prokind IN ('f', 'p') AND p.prorettype <> 'event_trigger'::regtype AND ${SYSTEM} AND ${NOT_EXTENSION('p.oid')}
  ORDER BY n.nspname, p.proname, p.oid`;

const ENUMS = `SELECT n.nspname AS schema, t.typname AS name, obj_description(t.oid, 'pg_type') AS comment,
    ARRAY(SELECT e.enumlabel FROM pg_enum e WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder)::text[] AS values
  FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
  WHERE t.typtype = 'e' AND ${SYSTEM} AND ${NOT_EXTENSION('t.oid')} ORDER BY n.nspname, t.typname`;

const ON_DELETE: Record<string, string> = { r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' };
const KINDS: Record<string, DbTable['kind']> = { r: 'table', p: 'table', v: 'view', m: 'materialized view' };

type Row = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** Opens a read-only session: the server refuses any write in it, whatever is sent. */
export async function connectPostgres(target: DbTarget): Promise<PgClient> {
  const { default: pg } = await importOptional('pg', () => import('pg'));
  const client = new pg.Client({
    connectionString: target.location,
    connectionTimeoutMillis: DB_TIMEOUTS.connectMs,
    statement_timeout: DB_TIMEOUTS.statementMs,
    query_timeout: DB_TIMEOUTS.statementMs + 5_000,
    options: '-c default_transaction_read_only=on',
    application_name: 'mcpkit-search',
  });
  // A connection dropped later (server restart) must not crash the process: the next refresh reports it.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw dbFailure(target, error);
  }
  return client;
}

/** Reads the schema of a PostgreSQL database: every table, view, function, procedure and enum outside the system's. */
export async function introspectPostgres(target: DbTarget): Promise<DbSchema> {
  const client = await connectPostgres(target);
  try {
    await client.query('BEGIN READ ONLY');
    const rows = async (sql: string) => (await client.query<Row>(sql)).rows;
    const [tables, columns, constraints, indexes, routines, enums] = [
      await rows(TABLES),
      await rows(COLUMNS),
      await rows(CONSTRAINTS),
      await rows(INDEXES),
      await rows(ROUTINES),
      await rows(ENUMS),
    ];
    await client.query('COMMIT');
    return {
      tables: assembleTables(tables, columns, constraints, indexes),
      routines: routines.map(
        (r): DbRoutine => ({
          schema: r.schema as string,
          name: r.name as string,
          kind: r.kind === 'p' ? 'procedure' : 'function',
          arguments: (r.arguments as string) ?? '',
          ...(text(r.returns) ? { returns: r.returns as string } : {}),
          ...(text(r.language) ? { language: r.language as string } : {}),
          ...(text(r.comment) ? { comment: r.comment as string } : {}),
          ...(text(r.body) ? { body: r.body as string } : {}),
        }),
      ),
      enums: enums.map(
        (e): DbEnum => ({
          schema: e.schema as string,
          name: e.name as string,
          values: e.values as string[],
          ...(text(e.comment) ? { comment: e.comment as string } : {}),
        }),
      ),
    };
  } catch (error) {
    throw dbFailure(target, error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function assembleTables(tables: Row[], columns: Row[], constraints: Row[], indexes: Row[]): DbTable[] {
  const byOid = new Map<string, DbTable>();
  for (const t of tables)
    byOid.set(t.oid as string, {
      schema: t.schema as string,
      name: t.name as string,
      kind: KINDS[t.kind as string] ?? 'table',
      ...(text(t.comment) ? { comment: t.comment as string } : {}),
      ...(text(t.definition) ? { definition: t.definition as string } : {}),
      columns: [],
      primaryKey: [],
      foreignKeys: [],
      checks: [],
      indexes: [],
    });
  for (const c of columns) {
    const column: DbColumn = {
      name: c.name as string,
      type: c.type as string,
      nullable: c.nullable as boolean,
      ...(text(c.default) ? { default: c.default as string } : {}),
      ...(text(c.comment) ? { comment: c.comment as string } : {}),
    };
    byOid.get(c.oid as string)?.columns.push(column);
  }
  for (const k of constraints) {
    const table = byOid.get(k.oid as string);
    if (!table) continue;
    if (k.type === 'p') table.primaryKey = k.columns as string[];
    else if (k.type === 'c') table.checks.push({ name: k.name as string, expression: k.def as string });
    else
      table.foreignKeys.push({
        name: k.name as string,
        columns: k.columns as string[],
        table: `${k.ref_schema as string}.${k.ref_table as string}`,
        refColumns: k.ref_columns as string[],
        ...(ON_DELETE[k.on_delete as string] ? { onDelete: ON_DELETE[k.on_delete as string] } : {}),
      });
  }
  for (const i of indexes)
    byOid.get(i.oid as string)?.indexes.push({
      name: i.name as string,
      columns: i.columns as string[],
      unique: i.unique as boolean,
      ...(text(i.where) ? { where: i.where as string } : {}),
    });
  return [...byOid.values()];
}
