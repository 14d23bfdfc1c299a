// MySQL's and MariaDB's schema from information_schema, in one read-only transaction with timeouts.
import type { Connection } from 'mysql2/promise';
import { importOptional } from '../../internal/optional-dependency.js';
import { DB_TIMEOUTS, dbFailure } from './db-failure.js';
import type { DbTarget } from './db-target.js';
import type { DbRoutine, DbSchema, DbTable } from './schema-model.js';

const SYSTEM = ['mysql', 'information_schema', 'performance_schema', 'sys'];

type Row = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** Opens a session whose transactions are read-only, with statement timeouts set (MariaDB's and MySQL's). */
export async function connectMysql(target: DbTarget): Promise<Connection> {
  const mysql = await importOptional('mysql2', () => import('mysql2/promise'));
  let connection: Connection;
  try {
    connection = await mysql.createConnection({
      uri: target.location,
      connectTimeout: DB_TIMEOUTS.connectMs,
      multipleStatements: false,
      // information_schema answers in the server's character set; strings, never Buffers.
      charset: 'utf8mb4',
    });
  } catch (error) {
    throw dbFailure(target, error);
  }
  connection.on('error', () => undefined);
  await connection.query('SET SESSION TRANSACTION READ ONLY');
  // Each engine knows one of these: MariaDB max_statement_time (s), MySQL max_execution_time (ms).
  await connection
    .query(`SET SESSION max_statement_time = ${DB_TIMEOUTS.statementMs / 1000}`)
    .catch(() => undefined);
  await connection
    .query(`SET SESSION max_execution_time = ${DB_TIMEOUTS.statementMs}`)
    .catch(() => undefined);
  return connection;
}

/** Reads the schema of a MySQL or MariaDB database (the URL's, or every non-system one when it names none). */
export async function introspectMysql(target: DbTarget): Promise<DbSchema> {
  const connection = await connectMysql(target);
  try {
    await connection.query('START TRANSACTION READ ONLY');
    const database = decodeURIComponent(new URL(target.location).pathname.replace(/^\//, ''));
    const scope = database ? [database] : undefined;
    const where = (column: string) =>
      scope ? `${column} = ?` : `${column} NOT IN (${SYSTEM.map(() => '?').join(', ')})`;
    const params = scope ?? SYSTEM;
    const rows = async (sql: string) =>
      (await connection.query({ sql, timeout: DB_TIMEOUTS.statementMs + 5_000 }, params))[0] as Row[];
    const tables = await rows(
      `SELECT TABLE_SCHEMA s, TABLE_NAME t, TABLE_TYPE k, TABLE_COMMENT c FROM information_schema.TABLES WHERE ${where('TABLE_SCHEMA')} ORDER BY s, t`,
    );
    const columns = await rows(
      `SELECT TABLE_SCHEMA s, TABLE_NAME t, COLUMN_NAME n, COLUMN_TYPE ty, IS_NULLABLE nu, COLUMN_DEFAULT d, COLUMN_COMMENT c
       FROM information_schema.COLUMNS WHERE ${where('TABLE_SCHEMA')} ORDER BY s, t, ORDINAL_POSITION`,
    );
    const indexes = await rows(
      `SELECT TABLE_SCHEMA s, TABLE_NAME t, INDEX_NAME i, NON_UNIQUE nu, COLUMN_NAME n
       FROM information_schema.STATISTICS WHERE ${where('TABLE_SCHEMA')} ORDER BY s, t, i, SEQ_IN_INDEX`,
    );
    // Two queries joined here: MariaDB evaluates a join of two information_schema tables by opening every
    // table once per row of the other (0.45 s of a 1,000-table read; these two take 0.1 s).
    const keyColumns = await rows(
      `SELECT TABLE_SCHEMA s, TABLE_NAME t, CONSTRAINT_NAME i, COLUMN_NAME n, REFERENCED_TABLE_SCHEMA rs,
         REFERENCED_TABLE_NAME rt, REFERENCED_COLUMN_NAME rn
       FROM information_schema.KEY_COLUMN_USAGE
       WHERE ${where('TABLE_SCHEMA')} AND REFERENCED_TABLE_NAME IS NOT NULL ORDER BY s, t, i, ORDINAL_POSITION`,
    );
    const rules = await rows(
      `SELECT CONSTRAINT_SCHEMA s, TABLE_NAME t, CONSTRAINT_NAME i, DELETE_RULE del
       FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE ${where('CONSTRAINT_SCHEMA')}`,
    );
    const ruleOf = new Map(rules.map((r) => [`${key(r)}\0${r.i as string}`, r.del]));
    const keys = keyColumns.map((k) => ({ ...k, del: ruleOf.get(`${key(k)}\0${k.i as string}`) }));
    // CHECK_CONSTRAINTS is there from MariaDB 10.2 and MySQL 8.0.16; older servers have no checks to read.
    // MariaDB names a column's check after the column, so names repeat across tables: its CHECK_CONSTRAINTS
    // says the table. MySQL's has no TABLE_NAME, and its names are unique in a schema: joined on the name.
    const checks = await rows(
      `SELECT CONSTRAINT_SCHEMA s, TABLE_NAME t, CONSTRAINT_NAME i, CHECK_CLAUSE e
       FROM information_schema.CHECK_CONSTRAINTS WHERE ${where('CONSTRAINT_SCHEMA')} ORDER BY s, t, i`,
    )
      .catch(() =>
        rows(
          `SELECT tc.TABLE_SCHEMA s, tc.TABLE_NAME t, cc.CONSTRAINT_NAME i, cc.CHECK_CLAUSE e
           FROM information_schema.TABLE_CONSTRAINTS tc JOIN information_schema.CHECK_CONSTRAINTS cc
             ON cc.CONSTRAINT_SCHEMA = tc.CONSTRAINT_SCHEMA AND cc.CONSTRAINT_NAME = tc.CONSTRAINT_NAME
           WHERE ${where('tc.TABLE_SCHEMA')} AND tc.CONSTRAINT_TYPE = 'CHECK' ORDER BY s, t, i`,
        ),
      )
      .catch(() => [] as Row[]);
    const views = await rows(
      `SELECT TABLE_SCHEMA s, TABLE_NAME t, VIEW_DEFINITION d FROM information_schema.VIEWS WHERE ${where('TABLE_SCHEMA')}`,
    );
    const routines = await rows(
      `SELECT ROUTINE_SCHEMA s, ROUTINE_NAME t, ROUTINE_TYPE k, DTD_IDENTIFIER r, ROUTINE_DEFINITION d, ROUTINE_COMMENT c
       FROM information_schema.ROUTINES WHERE ${where('ROUTINE_SCHEMA')} ORDER BY s, t`,
    );
    const parameters = await rows(
      `SELECT SPECIFIC_SCHEMA s, SPECIFIC_NAME t, PARAMETER_MODE m, PARAMETER_NAME n, DTD_IDENTIFIER ty
       FROM information_schema.PARAMETERS WHERE ${where('SPECIFIC_SCHEMA')} AND ORDINAL_POSITION > 0 ORDER BY s, t, ORDINAL_POSITION`,
    );
    await connection.query('COMMIT');
    return {
      tables: assemble(tables, columns, indexes, keys, checks, views),
      routines: routinesOf(routines, parameters),
      enums: [],
    };
  } catch (error) {
    throw dbFailure(target, error);
  } finally {
    await connection.end().catch(() => undefined);
  }
}

const key = (row: Row) => `${row.s as string}.${row.t as string}`;

function assemble(
  tables: Row[],
  columns: Row[],
  indexes: Row[],
  keys: Row[],
  checks: Row[],
  views: Row[],
): DbTable[] {
  const byName = new Map<string, DbTable>();
  const definitions = new Map(views.map((v) => [key(v), text(v.d)]));
  for (const t of tables) {
    const view = t.k === 'VIEW' || t.k === 'SYSTEM VIEW';
    const definition = definitions.get(key(t));
    byName.set(key(t), {
      schema: t.s as string,
      name: t.t as string,
      kind: view ? 'view' : 'table',
      ...(text(t.c) && !(view && t.c === 'VIEW') ? { comment: t.c as string } : {}),
      ...(definition ? { definition } : {}),
      columns: [],
      primaryKey: [],
      foreignKeys: [],
      checks: [],
      indexes: [],
    });
  }
  for (const c of columns)
    byName.get(key(c))?.columns.push({
      name: c.n as string,
      type: c.ty as string,
      nullable: c.nu === 'YES',
      // MariaDB prints a NULL default as the word NULL; MySQL as SQL NULL.
      ...(c.d !== null && c.d !== undefined && c.d !== 'NULL' ? { default: String(c.d) } : {}),
      ...(text(c.c) ? { comment: c.c as string } : {}),
    });
  const grouped = (rows: Row[]) => {
    const groups = new Map<string, Row[]>();
    for (const row of rows) {
      const id = `${key(row)}\0${row.i as string}`;
      groups.set(id, [...(groups.get(id) ?? []), row]);
    }
    return [...groups.values()];
  };
  for (const parts of grouped(indexes)) {
    const first = parts[0] as Row;
    const table = byName.get(key(first));
    if (!table) continue;
    const names = parts.map((p) => p.n as string);
    if (first.i === 'PRIMARY') table.primaryKey = names;
    else table.indexes.push({ name: first.i as string, columns: names, unique: Number(first.nu) === 0 });
  }
  for (const parts of grouped(keys)) {
    const first = parts[0] as Row;
    byName.get(key(first))?.foreignKeys.push({
      name: first.i as string,
      columns: parts.map((p) => p.n as string),
      table: `${first.rs as string}.${first.rt as string}`,
      refColumns: parts.map((p) => p.rn as string),
      // RESTRICT is MySQL's default (the same as NO ACTION): said only when it is something else.
      ...(text(first.del) && first.del !== 'RESTRICT' ? { onDelete: first.del as string } : {}),
    });
  }
  for (const c of checks) byName.get(key(c))?.checks.push({ name: c.i as string, expression: c.e as string });
  // The index InnoDB makes for a foreign key carries the key's name: the key already says it.
  for (const table of byName.values()) {
    const keys = new Set(table.foreignKeys.map((fk) => fk.name));
    table.indexes = table.indexes.filter((index) => !keys.has(index.name));
  }
  return [...byName.values()];
}

function routinesOf(routines: Row[], parameters: Row[]): DbRoutine[] {
  return routines.map((r) => {
    const args = parameters
      .filter((p) => key(p) === key(r))
      .map((p) => [r.k === 'PROCEDURE' ? p.m : undefined, p.n, p.ty].filter(Boolean).join(' '))
      .join(', ');
    return {
      schema: r.s as string,
      name: r.t as string,
      kind: r.k === 'PROCEDURE' ? 'procedure' : 'function',
      arguments: args,
      ...(r.k !== 'PROCEDURE' && text(r.r) ? { returns: r.r as string } : {}),
      ...(text(r.c) ? { comment: r.c as string } : {}),
      ...(text(r.d) ? { body: r.d as string } : {}),
    };
  });
}
