import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { parseDbTargets } from '../search/db-schemas/db-target.js';
import { withDatabases } from '../search/db-schemas/index-databases.js';
import { checkSearchRoot } from '../search/files/search-root.js';
import {
  BUILTIN_MODEL,
  CodeIndex,
  cachedIndexFile,
  createSearchServer,
  describeReport,
  formatResults,
  newestSavedIndex,
  resultsJson,
  SEARCH_MODES,
  type SearchMode,
  StaticModel,
} from '../search/index.js';
import { cacheCapacity } from '../search/server/repo-cache.js';
import { indexIntoStore, PgStore, parseStoreUrl } from '../search/stores/pg/index.js';
import { count } from './format.js';
import { bindFirst } from './http-port.js';
import type { CliIO } from './io.js';
import { collect, positiveInteger, usage } from './options.js';
import { createProgressReporter } from './progress.js';
import { addServeOptions, checkServeFlags } from './serve-options.js';
import { type ServeFlags, serveUntilDone } from './serve-until-done.js';

interface ServerFlags extends ServeFlags {
  allowPath: string[];
  model?: string;
  mode?: string;
  /** commander's `--no-vectors`: false when given. */
  vectors: boolean;
  db: string[];
  dbRefresh?: number;
  dbWatch?: boolean;
  /** commander's `--no-save-index`: false when given. */
  saveIndex: boolean;
  store?: string;
}

const STORE_HELP = 'a shared code index in PostgreSQL (postgres://user:password@host:port/database)';

const DB_HELP =
  'a database whose schema is searched too: [NAME=]postgres://…, mysql://… or a SQLite file; ${VAR} expanded (repeatable)';

/** `--mode` checked: a known mode, and vectors for the two that need them. */
/** `--model builtin` is the shipped model; anything else a directory. */
const modelDir = (cwd: string, model: string) => (model === BUILTIN_MODEL ? model : resolve(cwd, model));

function modeFlag(flags: { mode?: string; model?: string; vectors: boolean }): SearchMode {
  const hasVectors = flags.vectors || flags.model !== undefined;
  const chosen = flags.mode ?? (hasVectors ? 'hybrid' : 'bm25');
  if (!(SEARCH_MODES as readonly string[]).includes(chosen))
    usage(`--mode must be bm25, semantic or hybrid, got "${chosen}"`);
  if (chosen !== 'bm25' && !hasVectors)
    usage(`--mode ${chosen} needs vectors: drop --no-vectors or give --model DIR`);
  return chosen as SearchMode;
}

const NO_VECTORS =
  'bm25 only: no vectors learned from the code (faster to index; semantic and hybrid unavailable)';

/** `mcpkit search-server`, `mcpkit query`, `mcpkit index`: code search over a repository. */
export function registerSearchCommands(program: Command, io: CliIO): void {
  addServeOptions(program.command('search-server'))
    .description('serve code search (search, find_related) over a repository')
    .argument('[path]', 'the repository (default: the current directory)')
    .option('--allow-path <dir>', 'another directory a call may search (repeatable)', collect, [])
    .option(
      '--model <dir>',
      'a model2vec-format static model (tokenizer.json + model.safetensors) for semantic search; `builtin`: the one shipped',
    )
    .option('--mode <mode>', 'the mode of a search that names none: hybrid (default), semantic or bm25')
    .option('--no-vectors', NO_VECTORS)
    .option('--db <url>', DB_HELP, collect, [])
    .option(
      '--db-refresh <seconds>',
      're-read the database schemas this often',
      positiveInteger('--db-refresh'),
    )
    .option(
      '--db-watch',
      'PostgreSQL: install a DDL event trigger and LISTEN to see schema changes at once (writes to the database)',
    )
    .option(
      '--no-save-index',
      'do not save the index in the user cache directory (it is rebuilt at every start)',
    )
    .option(
      '--store <url>',
      `${STORE_HELP}: answer from it (written by mcpkit index --store) instead of indexing`,
    )
    .action(async (path: string | undefined, flags: ServerFlags) => {
      checkServeFlags('search-server', flags);
      // MCPKIT_SEARCH_STORE: how a parent — the gateway's --store — hands the store over without a password in `ps`.
      if (flags.store === undefined && io.env.MCPKIT_SEARCH_STORE) flags.store = io.env.MCPKIT_SEARCH_STORE;
      if (flags.store && (flags.db.length > 0 || flags.model))
        usage('search-server: --store answers from the stored index; --db and --model do not apply to it');
      if (flags.store) parseStoreUrl(flags.store);
      // With --store as without: hybrid unless told (a stored repository without vectors ranks as bm25).
      const mode = modeFlag(flags);
      const root = resolve(io.cwd, path ?? '.');
      // A missing root is refused before anything is served (with --store the root only names the default repo).
      if (!flags.store) await checkSearchRoot(root);
      // Bound before the repository is indexed: a busy port fails at once.
      const port = await bindFirst(flags);
      try {
        const model = flags.model ? await StaticModel.load(modelDir(io.cwd, flags.model)) : undefined;
        const store = flags.store
          ? await PgStore.connect(
              flags.store,
              cacheCapacity(io.env, (m) => io.err(`mcpkit search: ${m}\n`)),
            )
          : undefined;
        const server = createSearchServer({
          ...(store ? { store } : {}),
          ...(model ? { model } : {}),
          ...(flags.vectors ? {} : { vectors: 'none' as const }),
          saveIndex: flags.saveIndex,
          mode,
          root,
          allowPaths: flags.allowPath.map((p) => resolve(io.cwd, p)),
          log: (message) => io.err(`mcpkit search: ${message}\n`),
          env: io.env,
          // MCPKIT_SEARCH_DB (one per line): how a parent — the gateway — hands databases over without putting
          // a password on a command line that `ps` shows.
          databases: parseDbTargets(
            [
              ...flags.db,
              ...(io.env.MCPKIT_SEARCH_DB ?? '').split('\n').filter((line) => line.trim() !== ''),
            ],
            io.env,
            io.cwd,
            (m) => io.err(`mcpkit search: ${m}\n`),
          ),
          ...(flags.dbRefresh ? { dbRefreshSeconds: flags.dbRefresh } : {}),
          ...(flags.dbWatch ? { dbWatch: true } : {}),
        });
        await serveUntilDone(
          io,
          server.factory,
          port ? { ...flags, port: port.port } : flags,
          store
            ? `mcpkit search: serving the code index at ${store.address} (default repo ${basename(root)})`
            : `mcpkit search: serving ${root}`,
          () => server.close(),
        );
      } finally {
        await port?.release();
      }
    });

  program
    .command('query')
    .description('search a repository from the command line')
    .argument('<path>', 'the repository')
    .argument('<query>', 'what to look for')
    .option('--top-k <n>', 'how many results', positiveInteger('--top-k'), 5)
    .option('--mode <mode>', 'hybrid (default), semantic or bm25')
    .option(
      '--model <dir>',
      'a model2vec-format static model for semantic and hybrid search (`builtin`: the one shipped)',
    )
    .option('--no-vectors', NO_VECTORS)
    .option('--json', 'print the results as JSON')
    .option('--db <url>', DB_HELP, collect, [])
    .action(
      async (
        path: string,
        query: string,
        flags: {
          topK: number;
          mode?: string;
          model?: string;
          vectors: boolean;
          json?: boolean;
          db: string[];
        },
      ) => {
        const mode = modeFlag(flags);
        if (query.trim() === '') usage('query: the query must not be empty');
        const model = flags.model ? await StaticModel.load(modelDir(io.cwd, flags.model)) : undefined;
        const warn = (m: string) => io.err(`mcpkit query: ${m}\n`);
        const bar = progressBar(io);
        const budget = Number(io.env.MCPKIT_SEARCH_MEMORY_MB);
        const root = resolve(io.cwd, path);
        // The newer of the repository's own saved index and the one a search server keeps in the user cache.
        const indexFile = await newestSavedIndex(root, cachedIndexFile(root, io.env));
        const built = await CodeIndex.build(root, {
          ...(indexFile ? { indexFile } : {}),
          ...(model ? { model } : {}),
          ...(budget > 0 ? { memoryLimitMb: budget } : {}),
          // bm25 alone needs no vectors: skip learning them.
          ...(mode === 'bm25' ? { vectors: 'none' as const } : {}),
          onWarning: warn,
          ...(bar ? { onProgress: bar.update } : {}),
        }).finally(() => bar?.done());
        const index = await withDatabases(built, parseDbTargets(flags.db, io.env, io.cwd, warn), warn);
        const hits = index.search(query, flags.topK, mode);
        if (flags.json) io.out(`${JSON.stringify(resultsJson(query, hits), null, 2)}\n`);
        else
          io.out(
            `${hits.length === 0 ? 'No results found.' : formatResults(`Search results for: ${JSON.stringify(query)} (mode=${mode})`, hits)}\n`,
          );
      },
    );

  program
    .command('index')
    .description('index a repository and save the index under it (.mcpkit/), for fast starts')
    .argument('<path>', 'the repository')
    .option('--no-vectors', 'save the bm25 index only (no vectors learned from the code)')
    .option(
      '--db <url>',
      `${DB_HELP}: checked and reported (schemas are read live by query and search-server, never saved)`,
      collect,
      [],
    )
    .option(
      '--store <url>',
      `${STORE_HELP}: write the index there (changed files only) instead of under the repository`,
    )
    .option(
      '--name <name>',
      "with --store: the repository's name there, what a search's repo names (default: its directory name)",
    )
    .action(
      async (path: string, flags: { vectors: boolean; db: string[]; store?: string; name?: string }) => {
        if (flags.name !== undefined && !flags.store) usage('index: --name needs --store');
        if (flags.store && flags.db.length > 0)
          usage('index: --db is not written to --store (schemas are read live by search-server)');
        if (flags.store)
          return indexToStore(io, resolve(io.cwd, path), flags.store, flags.name, flags.vectors);
        const started = performance.now();
        const bar = progressBar(io);
        let indexedMs = 0;
        // From scratch: this is how a stale or foreign saved index gets replaced. The vectors are saved with it, so
        // a start with the saved index searches in hybrid mode at once.
        const budget = Number(io.env.MCPKIT_SEARCH_MEMORY_MB);
        const { index, done } = CodeIndex.open(resolve(io.cwd, path), {
          saved: false,
          ...(budget > 0 ? { memoryLimitMb: budget } : {}),
          vectors: flags.vectors ? 'background' : 'none',
          onWarning: (m) => io.err(`mcpkit index: ${m}\n`),
          ...(bar ? { onProgress: bar.update } : {}),
        });
        await done.finally(() => bar?.done());
        indexedMs = Math.round(performance.now() - started);
        await index.vectorsReady();
        const vectorsMs = Math.round(performance.now() - started) - indexedMs;
        const file = await index.save();
        const guarded = describeReport(index.report);
        const learned = index.hasVectors ? `, vectors in ${vectorsMs} ms` : '';
        io.out(
          `indexed ${count(index.files, 'file')}, ${count(index.chunkCount, 'chunk')} in ${indexedMs} ms${learned}${guarded ? ` (${guarded})` : ''}; saved ${file}\n`,
        );
        const warn = (m: string) => io.err(`mcpkit index: ${m}\n`);
        await withDatabases(index, parseDbTargets(flags.db, io.env, io.cwd, warn), warn, (m) =>
          io.out(`${m}\n`),
        );
      },
    );
}

/** `mcpkit index <path> --store URL`: the repository written to the shared index, changed files only. */
async function indexToStore(
  io: CliIO,
  root: string,
  url: string,
  name: string | undefined,
  vectors: boolean,
): Promise<void> {
  const target = parseStoreUrl(url);
  const started = performance.now();
  const bar = progressBar(io);
  const result = await indexIntoStore(root, target, {
    ...(name ? { name } : {}),
    vectors,
    onWarning: (m) => io.err(`mcpkit index: ${m}\n`),
    ...(bar ? { onProgress: (done, total) => bar.update(done, total, 0) } : {}),
  }).finally(() => bar?.done());
  const ms = Math.round(performance.now() - started);
  const guarded = describeReport(result.report);
  io.out(
    `indexed ${result.name} into ${target.address}: ${count(result.files, 'file')}, ${count(result.chunks, 'chunk')}; ${count(result.written, 'file')} written, ${result.removed} removed in ${ms} ms${guarded ? ` (${guarded})` : ''}\n`,
  );
}

/**
 * A progress bar on stderr while a repository is indexed, on a terminal only (a log gets the summary line alone);
 * redrawn at most every 100 ms.
 */
function progressBar(
  io: CliIO,
): { update(done: number, total: number, chunks: number): void; done(): void } | undefined {
  if (!io.stderrIsTTY) return undefined;
  const reporter = createProgressReporter(io);
  let last = 0;
  return {
    update: (done, total, chunks) => {
      const now = performance.now();
      if (now - last < 100 && done !== total) return;
      last = now;
      reporter.update({ progress: done, total, message: `files indexed, ${count(chunks, 'chunk')}` });
    },
    done: () => reporter.done(),
  };
}
