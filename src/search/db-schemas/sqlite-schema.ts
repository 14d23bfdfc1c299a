// A SQLite file's schema through sql.js (SQLite compiled to WebAssembly: nothing native to install). The file's
// bytes are read once into memory and never written back: the file is read-only by construction.
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { McpkitError } from '../../errors/index.js';
import { importOptional } from '../../internal/optional-dependency.js';
import type { DbTarget } from './db-target.js';
import type { DbColumn, DbSchema, DbTable } from './schema-model.js';

const require = createRequire(import.meta.url);
const HEADER = 'SQLite format 3\0';
/** A file larger than this is not read into memory for its schema. */
const MAX_BYTES = 1024 * 1024 * 1024;

type Row = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** Reads the schema of a SQLite file: tables, views and their columns, keys, indexes and checks. */
export async function introspectSqlite(target: DbTarget): Promise<DbSchema> {
  const bytes = await readDatabase(target.location);
  const { default: initSqlJs } = await importOptional('sql.js', () => import('sql.js'));
  const SQL = await initSqlJs({ locateFile: (file: string) => require.resolve(`sql.js/dist/${file}`) });
  const db = new SQL.Database(bytes);
  try {
    const rows = (sql: string, params: (string | number)[] = []): Row[] => {
      const statement = db.prepare(sql, params);
      const out: Row[] = [];
      while (statement.step()) out.push(statement.getAsObject() as Row);
      statement.free();
      return out;
    };
    const objects = rows(
      `SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`,
    );
    const indexSql = new Map(
      objects.filter((o) => o.type === 'index').map((o) => [o.name as string, text(o.sql)]),
    );
    const tables = objects
      .filter((o) => o.type === 'table' || o.type === 'view')
      .map((o): DbTable => {
        const name = o.name as string;
        const sql = (o.sql as string | null) ?? '';
        const comments = columnComments(sql);
        const columns = rows(
          'SELECT name, type, "notnull" AS nn, dflt_value AS d, pk FROM pragma_table_info(?)',
          [name],
        );
        const keys = rows(
          'SELECT id, "table" AS t, "from" AS f, "to" AS r, on_delete AS del FROM pragma_foreign_key_list(?) ORDER BY id, seq',
          [name],
        );
        const view = o.type === 'view';
        const table: DbTable = {
          schema: 'main',
          name,
          kind: view ? 'view' : 'table',
          ...(comments.table ? { comment: comments.table } : {}),
          ...(view ? { definition: sql.replace(/^[\s\S]*?\bAS\b\s*/i, '') } : {}),
          columns: columns.map(
            (c): DbColumn => ({
              name: c.name as string,
              type: (c.type as string) || 'any',
              nullable: Number(c.nn) === 0 && Number(c.pk) === 0,
              ...(c.d !== null && c.d !== undefined ? { default: String(c.d) } : {}),
              ...(comments.columns.get((c.name as string).toLowerCase())
                ? { comment: comments.columns.get((c.name as string).toLowerCase()) as string }
                : {}),
            }),
          ),
          primaryKey: columns
            .filter((c) => Number(c.pk) > 0)
            .sort((a, b) => Number(a.pk) - Number(b.pk))
            .map((c) => c.name as string),
          foreignKeys: [],
          checks: view ? [] : checksOf(sql),
          indexes: [],
        };
        const byId = new Map<number, Row[]>();
        for (const k of keys) byId.set(Number(k.id), [...(byId.get(Number(k.id)) ?? []), k]);
        for (const parts of byId.values()) {
          const first = parts[0] as Row;
          table.foreignKeys.push({
            columns: parts.map((p) => p.f as string),
            table: `main.${first.t as string}`,
            // A key that names no columns refers to the other table's primary key.
            refColumns: parts.map((p) => (p.r as string | null) ?? 'rowid'),
            ...(text(first.del) ? { onDelete: first.del as string } : {}),
          });
        }
        for (const index of rows(
          'SELECT name, "unique" AS u, origin FROM pragma_index_list(?) ORDER BY name',
          [name],
        )) {
          if (index.origin === 'pk') continue;
          const indexName = index.name as string;
          const where = /\bWHERE\b([\s\S]*)$/i.exec(indexSql.get(indexName) ?? '')?.[1]?.trim();
          table.indexes.push({
            name: indexName,
            columns: rows('SELECT name FROM pragma_index_info(?) ORDER BY seqno', [indexName]).map(
              (c) => (c.name as string | null) ?? '<expression>',
            ),
            unique: Number(index.u) === 1,
            ...(where ? { where } : {}),
          });
        }
        return table;
      });
    return { tables, routines: [], enums: [] };
  } finally {
    db.close();
  }
}

async function readDatabase(file: string): Promise<Uint8Array> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    throw new McpkitError(
      'IO',
      code === 'ENOENT'
        ? `cannot read SQLite database ${file}: no such file; check the path in --db`
        : `cannot read SQLite database ${file}: ${(cause as Error).message}`,
      { cause, file },
    );
  }
  try {
    const { size } = await handle.stat();
    if (size > MAX_BYTES)
      throw new McpkitError('IO', `cannot read SQLite database ${file}: over 1 GiB`, { file });
    const bytes = new Uint8Array(await handle.readFile());
    if (new TextDecoder().decode(bytes.subarray(0, HEADER.length)) !== HEADER)
      throw new McpkitError(
        'IO',
        `${file} is not a SQLite database (no "SQLite format 3" header); check the path in --db`,
        { file },
      );
    return bytes;
  } finally {
    await handle.close();
  }
}

/**
 * The `--` comments of a CREATE TABLE: one on the line of the opening parenthesis is the table's, one after a
 * column's definition is that column's. SQLite keeps a table's text as written, comments and all.
 */
function columnComments(sql: string): { table?: string; columns: Map<string, string> } {
  const columns = new Map<string, string>();
  let table: string | undefined;
  for (const line of sql.split('\n')) {
    const comment = /--\s*(.*)$/.exec(line)?.[1]?.trim();
    if (!comment) continue;
    const code = line.slice(0, line.indexOf('--'));
    if (/\bCREATE\b/i.test(code) && code.includes('(')) table = comment;
    else {
      const name = /^\s*["`[]?([A-Za-z_][\w$]*)["`\]]?\s/.exec(code)?.[1];
      if (name && !/^(PRIMARY|FOREIGN|UNIQUE|CHECK|CONSTRAINT)$/i.test(name))
        columns.set(name.toLowerCase(), comment);
    }
  }
  return table === undefined ? { columns } : { table, columns };
}

/** The CHECK constraints in a CREATE TABLE's text, each with its name when it has one. */
function checksOf(sql: string): { name?: string; expression: string }[] {
  const code = sql.replace(/--[^\n]*/g, '');
  const out: { name?: string; expression: string }[] = [];
  const pattern = /(?:CONSTRAINT\s+["`]?(\w+)["`]?\s+)?CHECK\s*\(/gi;
  for (let match = pattern.exec(code); match; match = pattern.exec(code)) {
    let depth = 1;
    let i = pattern.lastIndex;
    for (; i < code.length && depth > 0; i++) depth += code[i] === '(' ? 1 : code[i] === ')' ? -1 : 0;
    out.push({
      ...(match[1] ? { name: match[1] } : {}),
      expression: code.slice(pattern.lastIndex, i - 1).trim(),
    });
  }
  return out;
}
