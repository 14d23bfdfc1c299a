// A database's schema as search chunks: one per table or view, function or procedure, and enum type, written
// as the DDL a reader knows (columns with types, nullability, defaults and comments; keys both ways; indexes;
// checks), under paths like `db/<name>/<schema>.<table>` so results read like files.
import type { Chunk } from '../chunks/chunker.js';
import type { DbEnum, DbRoutine, DbSchema, DbTable } from './schema-model.js';
import { expandedWords } from './schema-words.js';

/** The longest body of a function kept in its chunk (the signature and comment say the most). */
const MAX_BODY_LINES = 40;

/** The path of a schema object's chunk: `db/<name>/<schema>.<object>`. */
export const schemaPath = (db: string, schema: string, object: string) => `db/${db}/${schema}.${object}`;

/** Every chunk of a schema, tables first, in a stable order (so a refresh that changed nothing is equal). */
export function schemaChunks(db: string, schema: DbSchema): Chunk[] {
  const incoming = referencedBy(schema.tables);
  const byName = (a: { schema: string; name: string }, b: { schema: string; name: string }) =>
    `${a.schema}.${a.name}`.localeCompare(`${b.schema}.${b.name}`);
  return stacked([
    ...[...schema.tables]
      .sort(byName)
      .map((t) => tableChunk(db, t, incoming.get(`${t.schema}.${t.name}`) ?? [])),
    ...[...schema.enums].sort(byName).map((e) => enumChunk(db, e)),
    ...[...schema.routines].sort(byName).map((r) => routineChunk(db, r)),
  ]);
}

/**
 * Chunks that share a path (a function's overloads) follow each other in lines, as definitions in one file
 * do, so `find_related` at a line names one of them.
 */
function stacked(chunks: Chunk[]): Chunk[] {
  const next = new Map<string, number>();
  return chunks.map((c) => {
    const start = next.get(c.path) ?? 1;
    next.set(c.path, start + c.endLine);
    return start === 1 ? c : { ...c, startLine: start, endLine: start + c.endLine - 1 };
  });
}

/** For each table, the foreign keys of other tables that point at it: `public.order_items(order_id)`. */
function referencedBy(tables: readonly DbTable[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const table of tables)
    for (const fk of table.foreignKeys) {
      const list = map.get(fk.table) ?? [];
      list.push(`${table.schema}.${table.name}(${fk.columns.join(', ')})`);
      map.set(fk.table, list);
    }
  // In a stable order: a refresh that changed nothing reads the same.
  for (const list of map.values()) list.sort();
  return map;
}

const comment = (text: string | undefined) => (text ? ` -- ${oneLine(text)}` : '');
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

function tableChunk(db: string, table: DbTable, incoming: string[]): Chunk {
  const qualified = `${table.schema}.${table.name}`;
  const lines: string[] = [];
  if (table.comment) lines.push(`-- ${oneLine(table.comment)}`);
  const keyword = table.kind.toUpperCase();
  if (table.kind !== 'table') {
    lines.push(`CREATE ${keyword} ${qualified} AS`);
    for (const line of (table.definition ?? '').trim().split('\n')) lines.push(`  ${line.trimEnd()}`);
    lines.push(`-- columns of ${qualified}:`);
    for (const column of table.columns)
      lines.push(`--   ${column.name} ${column.type}${comment(column.comment)}`);
  } else {
    lines.push(`CREATE TABLE ${qualified} (`);
    const single = new Map(
      table.foreignKeys.filter((fk) => fk.columns.length === 1).map((fk) => [fk.columns[0] as string, fk]),
    );
    const parts = table.columns.map((column) => {
      const fk = single.get(column.name);
      const pieces = [column.name, column.type];
      if (!column.nullable) pieces.push('NOT NULL');
      if (column.default !== undefined) pieces.push(`DEFAULT ${column.default}`);
      if (table.primaryKey.length === 1 && table.primaryKey[0] === column.name) pieces.push('PRIMARY KEY');
      if (fk) pieces.push(`REFERENCES ${fk.table}(${fk.refColumns.join(', ')})${onDelete(fk.onDelete)}`);
      return { text: `  ${pieces.join(' ')}`, comment: comment(column.comment) };
    });
    if (table.primaryKey.length > 1)
      parts.push({ text: `  PRIMARY KEY (${table.primaryKey.join(', ')})`, comment: '' });
    for (const fk of table.foreignKeys.filter((f) => f.columns.length > 1))
      parts.push({
        text: `  FOREIGN KEY (${fk.columns.join(', ')}) REFERENCES ${fk.table}(${fk.refColumns.join(', ')})${onDelete(fk.onDelete)}`,
        comment: '',
      });
    for (const check of table.checks)
      parts.push({
        text: `  ${check.name ? `CONSTRAINT ${check.name} ` : ''}CHECK (${oneLine(stripParens(check.expression))})`,
        comment: '',
      });
    for (const [i, part] of parts.entries())
      lines.push(`${part.text}${i < parts.length - 1 ? ',' : ''}${part.comment}`);
    lines.push(');');
  }
  for (const index of table.indexes)
    lines.push(
      `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${index.name} ON ${qualified} (${index.columns.join(', ')})${index.where ? ` WHERE ${oneLine(index.where)}` : ''};`,
    );
  if (incoming.length > 0) lines.push(`-- referenced by: ${incoming.join(', ')}`);
  const names = [table.name, ...table.columns.map((c) => c.name)];
  const words = expandedWords(names);
  if (words.length > 0) lines.push(`-- words: ${words.join(' ')}`);
  return chunk(schemaPath(db, table.schema, table.name), lines, names);
}

const onDelete = (action: string | undefined) =>
  action && action.toUpperCase() !== 'NO ACTION' ? ` ON DELETE ${action.toUpperCase()}` : '';

/** `((total >= 0))` as PostgreSQL prints it → `(total >= 0)`; `CHECK (…)` adds the outer pair back. */
function stripParens(expression: string): string {
  let text = expression.trim().replace(/^CHECK\s*/i, '');
  while (text.startsWith('(') && text.endsWith(')') && balanced(text.slice(1, -1)))
    text = text.slice(1, -1).trim();
  return text;
}

function balanced(text: string): boolean {
  let depth = 0;
  for (const ch of text) {
    if (ch === '(') depth++;
    else if (ch === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

function enumChunk(db: string, type: DbEnum): Chunk {
  const qualified = `${type.schema}.${type.name}`;
  const lines = [
    ...(type.comment ? [`-- ${oneLine(type.comment)}`] : []),
    `CREATE TYPE ${qualified} AS ENUM (${type.values.map((v) => `'${v.replaceAll("'", "''")}'`).join(', ')});`,
  ];
  const words = expandedWords([type.name, ...type.values]);
  if (words.length > 0) lines.push(`-- words: ${words.join(' ')}`);
  return chunk(schemaPath(db, type.schema, type.name), lines, [type.name]);
}

function routineChunk(db: string, routine: DbRoutine): Chunk {
  const qualified = `${routine.schema}.${routine.name}`;
  const lines = routine.comment ? [`-- ${oneLine(routine.comment)}`] : [];
  const returns = routine.returns ? ` RETURNS ${routine.returns}` : '';
  const language = routine.language ? ` LANGUAGE ${routine.language}` : '';
  lines.push(
    `CREATE ${routine.kind.toUpperCase()} ${qualified}(${routine.arguments})${returns}${language} AS $$`,
  );
  const body = (routine.body ?? '').replace(/^\n+|\s+$/g, '').split('\n');
  lines.push(...body.slice(0, MAX_BODY_LINES));
  if (body.length > MAX_BODY_LINES) lines.push(`-- … ${body.length - MAX_BODY_LINES} more lines`);
  lines.push('$$;');
  const words = expandedWords([routine.name, ...(routine.arguments.match(/[A-Za-z_]\w*/g) ?? [])]);
  if (words.length > 0) lines.push(`-- words: ${words.join(' ')}`);
  // Overloads share a name: the path is the name, the chunk is one per routine (a list of them by path).
  return chunk(schemaPath(db, routine.schema, routine.name), lines, [routine.name]);
}

function chunk(path: string, lines: string[], symbols: string[]): Chunk {
  return { path, startLine: 1, endLine: lines.length, language: 'sql', symbols, content: lines.join('\n') };
}
