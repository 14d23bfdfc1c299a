// The part of sql.js (SQLite in WebAssembly) that sqlite-schema.ts uses. @types/sql.js is not used: its
// @types/emscripten globals clash with web-tree-sitter's own Emscripten types.
declare module 'sql.js' {
  interface Statement {
    step(): boolean;
    getAsObject(): Record<string, unknown>;
    free(): void;
  }
  interface Database {
    prepare(sql: string, params?: (string | number)[]): Statement;
    close(): void;
  }
  interface SqlJsStatic {
    Database: new (data?: Uint8Array) => Database;
  }
  export default function initSqlJs(config?: { locateFile?: (file: string) => string }): Promise<SqlJsStatic>;
}
