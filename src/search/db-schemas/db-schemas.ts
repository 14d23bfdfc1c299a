// The databases of a search server: read at start, again on `reindex_db`, every --db-refresh seconds and, with
// --db-watch, when PostgreSQL says its schema changed. One refresh at a time; the index swaps a database's
// chunks in one step, so a search sees the old schema or the new, never half.

import { count } from '../../internal/plural.js';
import type { Chunk } from '../chunks/chunker.js';
import type { DbTarget } from './db-target.js';
import { readSchemaChunks } from './introspect.js';
import type { DbSchema } from './schema-model.js';

/** Options for {@link DbSchemas}. */
export interface DbSchemasOptions {
  targets: readonly DbTarget[];
  /** Puts a database's chunks in the index (replacing its earlier ones) in one step. */
  swap: (name: string, chunks: readonly Chunk[]) => Promise<void>;
  /** Re-read every database this often (`--db-refresh`); off when absent. */
  refreshSeconds?: number;
  /** Install a DDL event trigger and LISTEN in each PostgreSQL database (`--db-watch`; writes to the database). */
  watch?: boolean;
  log: (message: string) => void;
}

/** What one refresh did: a line per database (what changed, or why it could not be read) and the time taken. */
export interface RefreshReport {
  ms: number;
  lines: string[];
  /** Whether any database could not be read. */
  failed: boolean;
}

/** What `refresh` answers while another refresh runs: it never waits for it. */
export const REFRESH_BUSY =
  'a database schema refresh is already in progress; its result will be searched when it ends';

/** The schemas of a search server's databases, kept fresh. */
export class DbSchemas {
  private readonly known = new Map<string, Chunk[]>();
  private running: Promise<RefreshReport> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly watches: { close(): Promise<void> }[] = [];
  private closed = false;
  /** Settles when the first read of every database has ended (read or failed). */
  readonly loaded: Promise<RefreshReport>;

  constructor(private readonly options: DbSchemasOptions) {
    this.loaded = this.refresh() as Promise<RefreshReport>;
    const seconds = options.refreshSeconds;
    if (seconds && seconds > 0) {
      this.timer = setInterval(() => {
        const result = this.refresh();
        if (result !== REFRESH_BUSY) void result.then((report) => this.logChanges(report));
      }, seconds * 1000);
      this.timer.unref();
    }
    if (options.watch) void this.watchAll();
  }

  /**
   * Reads every database again and swaps in what changed; `REFRESH_BUSY` at once when a refresh is running.
   * A database that cannot be read keeps its last schema in the index.
   */
  refresh(): Promise<RefreshReport> | typeof REFRESH_BUSY {
    if (this.running) return REFRESH_BUSY;
    const run = this.run().finally(() => {
      this.running = undefined;
    });
    this.running = run;
    return run;
  }

  /** Stops the timer and every LISTEN connection; waits for a refresh in flight. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await Promise.all(this.watches.map((w) => w.close()));
    await this.running?.catch(() => undefined);
  }

  private async run(): Promise<RefreshReport> {
    const started = performance.now();
    const lines: string[] = [];
    let failed = false;
    for (const target of this.options.targets) {
      const began = performance.now();
      try {
        const { schema, chunks } = await readSchemaChunks(target);
        if (this.closed) break;
        const change = describeChange(this.known.get(target.name), chunks);
        if (change.changed) await this.options.swap(target.name, chunks);
        this.known.set(target.name, chunks);
        lines.push(
          `${target.name} (${target.shown}): ${summary(schema)} in ${Math.round(performance.now() - began)} ms; ${change.text}`,
        );
      } catch (error) {
        failed = true;
        const kept = this.known.has(target.name) ? ' (the last schema read stays searchable)' : '';
        lines.push(`${target.name}: ${(error as Error).message}${kept}`);
      }
    }
    return { ms: Math.round(performance.now() - started), lines, failed };
  }

  /** A refresh nobody asked for (timer, notification) is logged when it changed something or failed. */
  private logChanges(report: RefreshReport): void {
    for (const line of report.lines)
      if (!line.endsWith('; no change')) this.options.log(`schema refresh: ${line}`);
  }

  private async watchAll(): Promise<void> {
    for (const target of this.options.targets.filter((t) => t.engine !== 'postgres'))
      this.options.log(
        `${target.name}: --db-watch watches PostgreSQL only; use --db-refresh SECONDS for ${target.engine}`,
      );
    const { watchPostgres } = await import('./postgres-watch.js');
    for (const target of this.options.targets.filter((t) => t.engine === 'postgres')) {
      try {
        const watch = await watchPostgres(
          target,
          () => void this.refreshSoon(),
          (error) =>
            this.closed ||
            this.options.log(
              `${target.name}: stopped watching for schema changes: ${error.message}; reindex_db or --db-refresh still refresh`,
            ),
        );
        if (this.closed) await watch.close();
        else this.watches.push(watch);
        this.options.log(
          `watching ${target.name} (${target.shown}) for schema changes (event trigger mcpkit_search_ddl)`,
        );
      } catch (error) {
        this.options.log(`${target.name}: cannot watch for schema changes: ${(error as Error).message}`);
      }
    }
  }

  /** A notification refreshes at once, or right after the refresh that is running (it may have missed it). */
  private async refreshSoon(): Promise<void> {
    for (;;) {
      if (this.closed) return;
      const result = this.refresh();
      if (result !== REFRESH_BUSY) {
        this.logChanges(await result);
        return;
      }
      await this.running?.catch(() => undefined);
    }
  }
}

const summary = (schema: DbSchema) =>
  [
    count(schema.tables.filter((t) => t.kind === 'table').length, 'table'),
    count(schema.tables.filter((t) => t.kind !== 'table').length, 'view'),
    count(schema.routines.length, 'routine'),
    count(schema.enums.length, 'enum'),
  ].join(', ');

/** Which objects a new read added, removed or changed against the last one. */
function describeChange(
  before: readonly Chunk[] | undefined,
  after: readonly Chunk[],
): { changed: boolean; text: string } {
  if (!before) return { changed: true, text: `${count(after.length, 'object')} indexed` };
  const key = (c: Chunk) => `${c.path}:${c.startLine}`;
  const old = new Map(before.map((c) => [key(c), c]));
  const now = new Map(after.map((c) => [key(c), c]));
  const label = (c: Chunk) => c.path.split('/').slice(2).join('/');
  const added = after.filter((c) => !old.has(key(c))).map(label);
  const removed = before.filter((c) => !now.has(key(c))).map(label);
  const changed = after.filter((c) => old.has(key(c)) && old.get(key(c))?.content !== c.content).map(label);
  if (added.length + removed.length + changed.length === 0) return { changed: false, text: 'no change' };
  const parts = [
    added.length ? `added ${added.join(', ')}` : '',
    changed.length ? `changed ${changed.join(', ')}` : '',
    removed.length ? `removed ${removed.join(', ')}` : '',
  ].filter(Boolean);
  return { changed: true, text: parts.join('; ') };
}
