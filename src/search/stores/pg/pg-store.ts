import type { Pool } from 'pg';
import { McpkitError } from '../../../errors/index.js';
import { PgCodeIndex, type StoredRepo } from './pg-code-index.js';
import { checkout, parseStoreUrl, type StoreTarget, storeFailure, storePool } from './store-url.js';

/** Connections each search server keeps to the store (a search is one or two statements). */
const POOL_SIZE = 4;

/**
 * A shared code index in PostgreSQL (`--store postgres://…`), as a search server reads it: one {@link PgCodeIndex}
 * per repository, by the name `mcpkit index --store` gave it. Any number of servers may read one store while an
 * indexer writes it.
 */
export class PgStore {
  // Insertion order is recency: a hit moves its entry to the end; past `capacity` the first one's copy is dropped.
  private readonly indexes = new Map<string, PgCodeIndex>();

  private constructor(
    private readonly pool: Pool,
    private readonly target: StoreTarget,
    private readonly capacity: number,
  ) {}

  /**
   * Connects to the store (a bad URL or unreachable server is one line saying which and why). At most `capacity`
   * repositories' postings are held in memory (default 16, as the in-memory cache's `MCPKIT_SEARCH_CACHE_SIZE`).
   */
  static async connect(url: string, capacity = 16): Promise<PgStore> {
    const target = parseStoreUrl(url);
    const pool = await storePool(target, POOL_SIZE);
    try {
      const client = await checkout(pool, target);
      client.release();
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PgStore(pool, target, capacity);
  }

  /** host:port of the store, for messages. */
  get address(): string {
    return this.target.address;
  }

  /** The repositories in the store, by name. */
  async repos(): Promise<StoredRepo[]> {
    try {
      const { rows } = await this.pool.query<StoredRepo>(
        `SELECT id, name, root FROM mcpkit_repos ORDER BY name`,
      );
      return rows;
    } catch (error) {
      // No tables yet: nothing was indexed into this database.
      if ((error as { code?: string }).code === '42P01') return [];
      throw storeFailure(this.target, error);
    }
  }

  /** The index of a repository by name; a name the store does not hold is refused with the names it does. */
  async open(name: string): Promise<PgCodeIndex> {
    const known = this.indexes.get(name);
    if (known) {
      this.indexes.delete(name);
      this.indexes.set(name, known);
      return known;
    }
    const repos = await this.repos();
    const repo = repos.find((r) => r.name === name);
    if (!repo) {
      const held = repos.length ? `it holds ${repos.map((r) => r.name).join(', ')}` : 'it holds none yet';
      throw new McpkitError(
        'INVALID_ARGUMENT',
        `"repo" ${name} is not in the code index at ${this.target.address} (${held}); index it with mcpkit index <path> --store`,
      );
    }
    const index = new PgCodeIndex(this.pool, this.target, repo);
    // Loaded before the first search: its mode (hybrid when the store holds vectors) depends on the copy.
    await index.load();
    this.indexes.set(name, index);
    while (this.indexes.size > this.capacity) this.indexes.delete(this.indexes.keys().next().value as string);
    return index;
  }

  /** Closes every connection. */
  close(): Promise<void> {
    return this.pool.end();
  }
}
