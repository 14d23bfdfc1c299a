import { basename, resolve } from 'node:path';
import { type McpServerFactory, Server } from '@modelcontextprotocol/server';
import { McpkitError } from '../../errors/index.js';
import { PACKAGE_VERSION } from '../../internal/package-version.js';
import type { CodeIndex, SearchMode } from '../code-index/code-index.js';
import { DbSchemas } from '../db-schemas/db-schemas.js';
import type { DbTarget } from '../db-schemas/db-target.js';
import { REINDEX_DB_TOOL, reindexDb } from '../db-schemas/reindex-tool.js';
import type { SearchableIndex } from '../ranking/searchable-index.js';
import type { StaticModel } from '../vectors/static-model.js';
import { cacheCapacity, RepoCache } from './repo-cache.js';
import { repoLocator } from './repo-location.js';
import { SEARCH_TOOLS, searchToolsHandler } from './search-tools.js';

/** Options for {@link createSearchServer}. */
export interface SearchServerOptions {
  /** The repository searched when a call names none. */
  root: string;
  /** Other directories a call may name as `repo` (the root is always allowed). */
  allowPaths?: readonly string[];
  /**
   * How long a search waits for an index (and its vectors) still being built before it answers from what is there
   * (the files indexed so far, with `partial: N of M files` in its header; bm25 while vectors are learned);
   * default 1.5 s.
   */
  waitMs?: number;
  /** Follow file changes (default true). */
  watch?: boolean;
  /**
   * Save each indexed directory's index under the user's cache directory (`$MCPKIT_CACHE_DIR`, else
   * `$XDG_CACHE_HOME/mcpkit`, else `~/.cache/mcpkit`; keyed by the directory's real path) once built and a few
   * seconds after changes, and start from it next time; default true. Nothing is saved when `env` names no home.
   */
  saveIndex?: boolean;
  /** A static embedding model (`--model DIR`): semantic and hybrid modes, hybrid by default. */
  model?: StaticModel;
  /** The mode of a search that names none; default `hybrid` (`bm25` with vectors off). */
  mode?: SearchMode;
  /**
   * `none`: no corpus vectors (bm25 only, faster to build); default `background`: learned after the bm25 index
   * is ready, a search waiting for them within `waitMs` (ignored with a model).
   */
  vectors?: 'corpus' | 'background' | 'none';
  /** Where `MCPKIT_SEARCH_CACHE_SIZE` is read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  log?: (message: string) => void;
  /** Databases whose schemas are searched with the root's code (`--db`), and the `reindex_db` tool. */
  databases?: readonly DbTarget[];
  /** Re-read the databases' schemas this often (`--db-refresh`). */
  dbRefreshSeconds?: number;
  /** PostgreSQL: install a DDL event trigger and LISTEN, so a schema change is seen at once (`--db-watch`). */
  dbWatch?: boolean;
  /**
   * A shared index (`--store postgres://…`, src/search/stores/pg/) searched instead of indexing in memory: a call's
   * `repo` names a repository in it, none the root's base name. Nothing is indexed, watched or saved here.
   */
  store?: IndexStore;
}

/** Where a server's indexes live when they are not built in memory: repositories by name. */
export interface IndexStore {
  /** The index of a repository by name; an unknown name is an INVALID_ARGUMENT McpkitError. */
  open(name: string): Promise<SearchableIndex>;
  close(): Promise<void>;
}

/** A code-search server: one MCP server per connection from `factory`, all sharing one repository cache. */
export interface SearchServer {
  /** Builds the MCP server for one connection (serve it with `serveOverStdio` / `serveOverHttp`). */
  factory: McpServerFactory;
  /** The root's index, once built and (unless `watch: false`) watched: a file saved from then on is seen. */
  ready(): Promise<CodeIndex>;
  /** The repositories indexed now (directories, clone URLs), least recently used first. */
  cached(): string[];
  /** The databases' schemas (with `databases`): `loaded` settles after their first read. */
  databases?: DbSchemas;
  /** Stops every watcher and deletes every clone. */
  close(): Promise<void>;
}

/**
 * The code-search MCP server: `search` and `find_related` over the root (indexed in the background from the
 * start, so `initialize` is answered at once) or another allowed directory. Bad input is an `isError`
 * result naming the problem; the server keeps serving.
 *
 * @example
 * const search = createSearchServer({ root: '.' });
 * await serveOverStdio(search.factory);
 */
export function createSearchServer(options: SearchServerOptions): SearchServer {
  const log = options.log ?? ((message: string) => process.stderr.write(`mcpkit search: ${message}\n`));
  const env = options.env ?? process.env;
  const root = resolve(options.root);
  const cache = new RepoCache({
    build: { ...(options.model ? { model: options.model } : {}), vectors: options.vectors ?? 'background' },
    capacity: cacheCapacity(env, log),
    ...(options.watch === undefined ? {} : { watch: options.watch }),
    saveIndex: options.saveIndex ?? true,
    env,
    log,
  });
  const { store } = options;
  if (!store) cache.get(root);
  const callTool = searchToolsHandler({
    ...(store ? { store: (repo: string | undefined) => store.open(repo ?? basename(root)) } : {}),
    cache,
    locate: repoLocator({ root, allowPaths: options.allowPaths ?? [], env }),
    waitMs: options.waitMs ?? 1500,
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.vectors ? { vectors: options.vectors } : {}),
    ...(options.model ? { model: options.model } : {}),
    log,
  });
  const databases = options.databases?.length ? startDatabases(cache, root, options, log) : undefined;
  const tools = databases ? [...SEARCH_TOOLS, REINDEX_DB_TOOL] : SEARCH_TOOLS;

  const factory: McpServerFactory = () => {
    const server = new Server(
      { name: 'mcpkit-search', version: PACKAGE_VERSION },
      {
        capabilities: { tools: {} },
        instructions:
          'Code search over a repository. Use `search` to find where something is implemented (words or a ' +
          'symbol name), then `find_related` on a result to see similar code, callers and tests.',
      },
    );
    server.setRequestHandler('tools/list', async () => ({ tools }));
    server.setRequestHandler('tools/call', (request, ctx) =>
      databases && request.params.name === REINDEX_DB_TOOL.name
        ? reindexDb(databases)
        : callTool(request.params.name, (request.params.arguments ?? {}) as Record<string, unknown>, ctx),
    );
    return server;
  };

  return {
    factory,
    ready: async () => {
      if (store)
        throw new McpkitError(
          'INVALID_ARGUMENT',
          'this search server answers from its store, not an in-memory index',
        );
      const { index } = cache.get(root);
      await cache.watched(root);
      const ready = await index;
      await ready.vectorsReady();
      return ready;
    },
    cached: () => cache.keys(),
    ...(databases ? { databases } : {}),
    close: async () => {
      await databases?.close();
      await cache.close();
      await store?.close();
    },
  };
}

/**
 * Reads the databases' schemas into the root's index (each database's chunks swapped in one step, after the
 * index is built), logging a line per database; a database that cannot be read is one line, and the code
 * index serves on.
 */
function startDatabases(
  cache: RepoCache,
  root: string,
  options: SearchServerOptions,
  log: (message: string) => void,
): DbSchemas {
  const databases = new DbSchemas({
    targets: options.databases ?? [],
    ...(options.dbRefreshSeconds ? { refreshSeconds: options.dbRefreshSeconds } : {}),
    ...(options.dbWatch ? { watch: true } : {}),
    log,
    swap: async (name, chunks) => {
      // The index is one object the watcher updates in place: its documents from this database are replaced in
      // one synchronous step, so a search sees the old schema or the new, never half.
      const index = await cache.get(root).index;
      index.addDocuments(name, chunks);
    },
  });
  void databases.loaded.then((report) => {
    for (const line of report.lines) log(`database ${line}`);
  });
  return databases;
}
