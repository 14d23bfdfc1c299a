// What introspection reads from a database, the same shape for every engine; schema-chunks.ts writes it as
// search chunks.

/** A column of a table or view. */
export interface DbColumn {
  name: string;
  /** As the engine prints it: `character varying(255)`, `enum('open','closed')`. */
  type: string;
  nullable: boolean;
  default?: string;
  comment?: string;
}

/** A foreign key: these columns of the table refer to those of another. */
export interface DbForeignKey {
  name?: string;
  columns: string[];
  /** The referenced table, as `<schema>.<table>`. */
  table: string;
  refColumns: string[];
  onDelete?: string;
}

/** An index (the primary key's own is left out: it is the primary key). */
export interface DbIndex {
  name: string;
  /** Columns or expressions, in order. */
  columns: string[];
  unique: boolean;
  /** A partial index's condition. */
  where?: string;
}

/** A table, view or materialized view. */
export interface DbTable {
  schema: string;
  name: string;
  kind: 'table' | 'view' | 'materialized view';
  comment?: string;
  columns: DbColumn[];
  primaryKey: string[];
  foreignKeys: DbForeignKey[];
  checks: { name?: string; expression: string }[];
  indexes: DbIndex[];
  /** A view's query. */
  definition?: string;
}

/** A function or procedure. */
export interface DbRoutine {
  schema: string;
  name: string;
  kind: 'function' | 'procedure';
  /** The argument list as the engine prints it: `p_order_id bigint, p_reason text`. */
  arguments: string;
  returns?: string;
  language?: string;
  comment?: string;
  /** The body, as stored. */
  body?: string;
}

/** An enum type (PostgreSQL's `CREATE TYPE … AS ENUM`). */
export interface DbEnum {
  schema: string;
  name: string;
  values: string[];
  comment?: string;
}

/** Everything introspection read from one database. */
export interface DbSchema {
  tables: DbTable[];
  routines: DbRoutine[];
  enums: DbEnum[];
}
