import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import {
  type CallToolResult,
  type McpServerFactory,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { type FSWatcher, watch } from 'chokidar';
import { PACKAGE_VERSION } from '../internal/package-version.js';
import { type CheckedUrl, checkCloneUrl, cloneRepo } from './clone.js';
import { CodeIndex, formatResults, SEARCH_MODES, type SearchMode } from './code-index.js';
import type { StaticModel } from './static-model.js';
import { isSkippedDir } from './walk.js';

/** Options for {@link createSearchServer}. */
export interface SearchServerOptions {
  /** The repository searched when a call names none. */
  root: string;
  /** Other directories a call may name as `repo` (the root is always allowed). */
  allowPaths?: readonly string[];
  /** How long a search waits for an index still being built; default 30 s. */
  waitMs?: number;
  /** Follow file changes (default true). */
  watch?: boolean;
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
}

const MODES: readonly SearchMode[] = SEARCH_MODES;

const REPO = {
  type: 'string',
  description:
    'Which repository: an https:// git URL (cloned shallowly and cached), or a local path inside the directories ' +
    'this server was allowed (default: the one it was started on).',
};
const TOP_K = {
  type: 'integer',
  minimum: 1,
  maximum: 100,
  default: 5,
  description: 'How many results to return.',
};

/** The two tools, named and shaped as semble's so agents used to it work unchanged. */
export const SEARCH_TOOLS: Tool[] = [
  {
    name: 'search',
    description:
      'Find the code that does something, by meaning or by name: "where are retries handled", "parseConfig", ' +
      '"how is the cache evicted". Returns the best matching functions, classes or sections with their file, ' +
      'lines and code. Use it before reading files or grepping.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What you are looking for, in words or as a symbol name.' },
        repo: REPO,
        mode: {
          type: 'string',
          enum: [...MODES],
          description: 'hybrid (default), semantic or bm25 (keywords).',
        },
        top_k: TOP_K,
      },
      required: ['query'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'find_related',
    description:
      'Find code like the code at a file and line — other implementations, callers, tests. Pass file_path and ' +
      'line from a search result.',
    inputSchema: {
      type: 'object',
      properties: {
        file_path: {
          type: 'string',
          description: 'The file, as search results print it (relative to the repo).',
        },
        line: { type: 'integer', minimum: 1, description: 'A line inside the code of interest (1-based).' },
        repo: REPO,
        top_k: TOP_K,
      },
      required: ['file_path', 'line'],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
];

interface Entry {
  /** The current index: replaced by a fresh one after files change. */
  index: Promise<CodeIndex>;
  progress: { done: number; total: number };
  watcher?: FSWatcher;
  /** For a clone: deletes the checkout. */
  cleanup?: () => Promise<void>;
}

/** How many repositories stay indexed (`MCPKIT_SEARCH_CACHE_SIZE`, default 16; a bad value warns). */
function cacheSize(
  env: Readonly<Record<string, string | undefined>>,
  log: (message: string) => void,
): number {
  const raw = env.MCPKIT_SEARCH_CACHE_SIZE;
  if (raw === undefined || raw === '') return 16;
  const n = Number(raw);
  if (Number.isInteger(n) && n >= 1) return n;
  log(`MCPKIT_SEARCH_CACHE_SIZE=${raw} is not a whole number from 1; using 16`);
  return 16;
}

/** Changes seen within this long of each other are applied together. */
const SETTLE_MS = 100;

/**
 * The code-search MCP server: `search` and `find_related` over the root (indexed in the background from the
 * start, so `initialize` is answered at once) or another allowed directory. Bad input is an `isError`
 * result naming the problem; the server keeps serving.
 */
export function createSearchServer(options: SearchServerOptions) {
  const log = options.log ?? ((message: string) => process.stderr.write(`mcpkit search: ${message}\n`));
  const root = resolve(options.root);
  const allowed = [root, ...(options.allowPaths ?? []).map((p) => resolve(p))];
  // Insertion order is recency: a hit moves its entry to the end, the first one is evicted.
  const indexes = new Map<string, Entry>();
  const capacity = cacheSize(options.env ?? process.env, log);
  let warnedVectors = false;

  /** The allowed directories with symlinks resolved, once. */
  let allowedReal: Promise<string[]> | undefined;
  /** Checked clone URLs by key, between the check and the clone. */
  const clones = new Map<string, CheckedUrl>();

  const evict = (dir: string) => {
    const entry = indexes.get(dir);
    indexes.delete(dir);
    void entry?.watcher?.close();
    void entry?.cleanup?.();
  };

  /** Re-reads changed files shortly after they are saved (only those files are chunked again). */
  const watchEntry = (dir: string, entry: Entry) => {
    const pending = new Set<string>();
    let timer: NodeJS.Timeout | undefined;
    const watcher = watch(dir, {
      ignoreInitial: true,
      ignored: (path: string) =>
        relative(dir, path)
          .split(sep)
          .some((part) => isSkippedDir(part)),
    });
    const changed = (path: string) => {
      pending.add(relative(dir, path).split(sep).join('/'));
      clearTimeout(timer);
      timer = setTimeout(() => {
        const paths = [...pending];
        pending.clear();
        const next = entry.index.then((index) => index.withFiles(paths));
        next.then(
          () => {
            if (indexes.get(dir) === entry) entry.index = next;
          },
          (error: Error) => log(`cannot re-index ${paths.join(', ')}: ${error.message}`),
        );
      }, SETTLE_MS);
    };
    watcher
      .on('add', changed)
      .on('change', changed)
      .on('unlink', changed)
      .on('error', () => undefined);
    entry.watcher = watcher;
  };

  /**
   * The entry of a local directory or a clone URL, built on first use (concurrent first requests share one
   * build) and touched as most recently used. A clone is a shallow checkout in a temp dir, deleted with its
   * entry; a directory is watched once built.
   */
  const indexOf = (key: string): Entry => {
    const known = indexes.get(key);
    if (known) {
      indexes.delete(key);
      indexes.set(key, known);
      return known;
    }
    const progress = { done: 0, total: 0 };
    const started = performance.now();
    const buildOptions = {
      ...(options.model ? { model: options.model } : {}),
      vectors: options.vectors ?? 'background',
      onWarning: log,
      onProgress: (done: number, total: number) => {
        progress.done = done;
        progress.total = total;
      },
    };
    const checked = clones.get(key);
    let checkout: string | undefined;
    const index = checked
      ? (async () => {
          checkout = await mkdtemp(join(tmpdir(), 'mcpkit-clone-'));
          await cloneRepo(checked, join(checkout, 'repo'), { env: options.env ?? process.env });
          return CodeIndex.build(join(checkout, 'repo'), buildOptions);
        })()
      : CodeIndex.build(key, buildOptions);
    const entry: Entry = {
      index,
      progress,
      ...(checked
        ? { cleanup: async () => void (checkout && (await rm(checkout, { recursive: true, force: true }))) }
        : {}),
    };
    index.then(
      (ready) => {
        const what = checked ? 'cloned and indexed' : 'indexed';
        log(
          `${what} ${key}: ${ready.files} files, ${ready.chunks.length} chunks in ${Math.round(performance.now() - started)} ms`,
        );
        if (!checked && options.watch !== false && indexes.get(key) === entry) watchEntry(key, entry);
        const learning = performance.now();
        void ready.vectorsReady().then(() => {
          if (ready.hasVectors && !options.model)
            log(`learned vectors from ${key} in ${Math.round(performance.now() - learning)} ms`);
        });
      },
      (error: Error) => {
        log(`cannot index ${key}: ${error.message}`);
        void entry.cleanup?.();
        if (indexes.get(key) === entry) indexes.delete(key);
      },
    );
    indexes.set(key, entry);
    while (indexes.size > capacity) evict(indexes.keys().next().value as string);
    return entry;
  };
  indexOf(root);

  const repoDir = async (repo: unknown): Promise<string> => {
    if (repo === undefined || repo === null || repo === '') return root;
    if (typeof repo !== 'string') throw new InputError('"repo" must be a string');
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(repo) || /^[\w.-]+@[\w.-]+:/.test(repo)) {
      const env = options.env ?? process.env;
      try {
        const checked = await checkCloneUrl(repo, env.MCPKIT_ALLOW_PRIVATE_CLONE === '1');
        clones.set(checked.url.href, checked);
        return checked.url.href;
      } catch (error) {
        throw new InputError(`"repo" refused: ${(error as Error).message}`);
      }
    }
    const dir = await realpath(resolve(root, repo)).catch(() => {
      throw new InputError(`"repo" ${repo} does not exist`);
    });
    allowedReal ??= Promise.all(allowed.map((base) => realpath(base).catch(() => base)));
    if (!(await allowedReal).some((base) => isInside(dir, base)))
      throw new InputError(
        `"repo" ${repo} is outside the directories this server may read (${allowed.join(', ')})`,
      );
    return dir;
  };

  const ready = async (dir: string, ctx: ServerContext): Promise<CodeIndex> => {
    const entry = indexOf(dir);
    const token = (ctx.mcpReq._meta as { progressToken?: string | number } | undefined)?.progressToken;
    const tick =
      token === undefined
        ? undefined
        : setInterval(() => {
            const { done, total } = entry.progress;
            ctx.mcpReq
              .notify({
                method: 'notifications/progress',
                params: {
                  progressToken: token,
                  progress: done,
                  ...(total ? { total } : {}),
                  message: 'indexing',
                },
              })
              .catch(() => undefined);
          }, 250);
    let timer: NodeJS.Timeout | undefined;
    try {
      const waited = new Promise<undefined>((done) => {
        timer = setTimeout(() => done(undefined), options.waitMs ?? 30_000);
      });
      const index = await Promise.race([entry.index, waited]).catch((error: Error) => {
        throw new InputError(`cannot index ${dir}: ${error.message}`);
      });
      if (!index) {
        const { done, total } = entry.progress;
        throw new InputError(
          `the index of ${dir} is still being built (${done} of ${total || '?'} files); try again shortly`,
        );
      }
      // Vectors are learned after bm25 is ready: wait for them within the same budget, then answer with
      // what there is (bm25 alone on a repository too large to learn them in time).
      await Promise.race([index.vectorsReady(), waited]);
      return index;
    } finally {
      clearTimeout(timer);
      clearInterval(tick);
    }
  };

  const search = async (args: Record<string, unknown>, ctx: ServerContext): Promise<CallToolResult> => {
    const query = typeof args.query === 'string' ? args.query.trim() : '';
    if (!query) throw new InputError('"query" must be a non-empty string');
    if (args.mode !== undefined && !MODES.includes(args.mode as SearchMode))
      throw new InputError(`"mode" must be one of ${MODES.join(', ')}; got ${JSON.stringify(args.mode)}`);
    const topK = count(args.top_k);
    const index = await ready(await repoDir(args.repo), ctx);
    const mode =
      (args.mode as SearchMode | undefined) ?? options.mode ?? (index.hasVectors ? 'hybrid' : 'bm25');
    if (mode !== 'bm25' && options.vectors === 'none' && !options.model && !warnedVectors) {
      warnedVectors = true;
      log('vectors are off (--no-vectors): semantic and hybrid searches rank with bm25');
    }
    const used: SearchMode = index.hasVectors ? mode : 'bm25';
    const hits = index.search(query, topK, used);
    if (hits.length === 0) return text('No results found.');
    return text(formatResults(`Search results for: ${JSON.stringify(query)} (mode=${used})`, hits));
  };

  const findRelated = async (args: Record<string, unknown>, ctx: ServerContext): Promise<CallToolResult> => {
    if (typeof args.file_path !== 'string' || args.file_path === '')
      throw new InputError('"file_path" must be a file path');
    if (typeof args.line !== 'number' || !Number.isInteger(args.line) || args.line < 1)
      throw new InputError('"line" must be a whole number from 1');
    const index = await ready(await repoDir(args.repo), ctx);
    const path = isAbsolute(args.file_path)
      ? relative(index.root, args.file_path).split(sep).join('/')
      : args.file_path;
    if (!index.hasFile(path)) throw new InputError(`${args.file_path} is not in the index of ${index.root}`);
    const chunk = index.chunkAt(path, args.line);
    if (!chunk)
      throw new InputError(`no indexed code at ${args.file_path}:${args.line} (past the end of the file?)`);
    const hits = index.findRelated(chunk, count(args.top_k));
    if (hits.length === 0) return text(`No related chunks found for ${args.file_path}:${args.line}.`);
    return text(formatResults(`Chunks related to ${args.file_path}:${args.line}`, hits));
  };

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
    server.setRequestHandler('tools/list', async () => ({ tools: SEARCH_TOOLS }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      const handler =
        request.params.name === 'search'
          ? search
          : request.params.name === 'find_related'
            ? findRelated
            : undefined;
      if (!handler)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      try {
        return await handler(args, ctx);
      } catch (error) {
        if (error instanceof InputError)
          return { content: [{ type: 'text', text: error.message }], isError: true };
        throw error;
      }
    });
    return server;
  };

  return {
    factory,
    /** The root's index, once built. */
    ready: () => indexOf(root).index,
    /** The directories indexed now, least recently used first. */
    cached: () => [...indexes.keys()],
    /** Stops every watcher. */
    close: async () => {
      for (const dir of [...indexes.keys()]) evict(dir);
    },
  };
}

/** Bad tool input: answered as an isError result. */
class InputError extends Error {}

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

function count(value: unknown): number {
  if (value === undefined) return 5;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 100)
    throw new InputError('"top_k" must be a whole number from 1 to 100');
  return value;
}

function isInside(dir: string, base: string): boolean {
  const rel = relative(base, dir);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
