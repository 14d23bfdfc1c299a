import { resolve } from 'node:path';
import type { Command } from 'commander';
import { parseDbTargets } from '../search/db/db-target.js';
import { withDatabases } from '../search/db/index-databases.js';
import {
  CodeIndex,
  createSearchServer,
  describeReport,
  formatResults,
  resultsJson,
  SEARCH_MODES,
  type SearchMode,
  StaticModel,
} from '../search/index.js';
import { count } from './format.js';
import { bindFirst } from './http-port.js';
import type { CliIO } from './io.js';
import { collect, positiveInteger, usage } from './options.js';
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
}

const DB_HELP =
  'a database whose schema is searched too: [NAME=]postgres://…, mysql://… or a SQLite file; ${VAR} expanded (repeatable)';

/** `--mode` checked: a known mode, and vectors for the two that need them. */
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
      'a model2vec-format static model (tokenizer.json + model.safetensors) for semantic search',
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
    .action(async (path: string | undefined, flags: ServerFlags) => {
      checkServeFlags('search-server', flags);
      const mode = modeFlag(flags);
      const root = resolve(io.cwd, path ?? '.');
      // Bound before the repository is indexed: a busy port fails at once.
      const port = await bindFirst(flags);
      try {
        const model = flags.model ? await StaticModel.load(resolve(io.cwd, flags.model)) : undefined;
        const server = createSearchServer({
          ...(model ? { model } : {}),
          ...(flags.vectors ? {} : { vectors: 'none' as const }),
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
          `mcpkit search: serving ${root}`,
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
    .option('--model <dir>', 'a model2vec-format static model for semantic and hybrid search')
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
        const model = flags.model ? await StaticModel.load(resolve(io.cwd, flags.model)) : undefined;
        const warn = (m: string) => io.err(`mcpkit query: ${m}\n`);
        const built = await CodeIndex.build(resolve(io.cwd, path), {
          ...(model ? { model } : {}),
          // bm25 alone needs no vectors: skip learning them.
          ...(mode === 'bm25' ? { vectors: 'none' as const } : {}),
          onWarning: warn,
        });
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
    .option(
      '--db <url>',
      `${DB_HELP}: checked and reported (schemas are read live by query and search-server, never saved)`,
      collect,
      [],
    )
    .action(async (path: string, flags: { db: string[] }) => {
      const started = performance.now();
      const tty = io.stderrIsTTY;
      // From scratch: this is how a stale or foreign saved index gets replaced.
      const index = await CodeIndex.build(resolve(io.cwd, path), {
        saved: false,
        // The saved file holds chunks; vectors are learned again at load (they are fast to learn, large to store).
        vectors: 'none',
        onProgress: (done, total, chunks) => {
          if (tty && (done % 50 === 0 || done === total))
            io.err(
              `\r\x1b[2Kindexing: ${done}/${total} files, ${chunks} chunks, ${((performance.now() - started) / 1000).toFixed(1)} s`,
            );
        },
      });
      if (tty) io.err('\n');
      const ms = Math.round(performance.now() - started);
      const file = await index.save();
      const guarded = describeReport(index.report);
      io.out(
        `indexed ${count(index.files, 'file')}, ${count(index.chunks.length, 'chunk')} in ${ms} ms${guarded ? ` (${guarded})` : ''}; saved ${file}\n`,
      );
      const warn = (m: string) => io.err(`mcpkit index: ${m}\n`);
      await withDatabases(index, parseDbTargets(flags.db, io.env, io.cwd, warn), warn, (m) =>
        io.out(`${m}\n`),
      );
    });
}
