import { isAbsolute, relative, sep } from 'node:path';
import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { isMcpkitError, McpkitError } from '../../errors/index.js';
import { failedResult, progressSender, textResult } from '../../serve/index.js';
import { SEARCH_MODES, type SearchMode } from '../code-index/code-index.js';
import { formatResults } from '../ranking/results.js';
import type { SearchableIndex } from '../ranking/searchable-index.js';
import type { StaticModel } from '../vectors/static-model.js';
import type { CachedRepo, RepoCache } from './repo-cache.js';
import type { RepoLocation } from './repo-location.js';

// The tools' arguments, named and shaped as semble's (`top_k`, `file_path`) so agents used to it work unchanged.
// Each message is the one a bad value gets back, as an isError result.

const RepoSchema = z
  // An empty or null `repo` means the default repository, as semble's optional argument does.
  .preprocess(
    (value) => (value === null || value === '' ? undefined : value),
    z.string({ error: '"repo" must be a string' }).optional(),
  )
  .describe(
    'Which repository: an https:// git URL (cloned shallowly and cached), or a local path inside the directories ' +
      'this server was allowed (default: the one it was started on).',
  );

const TOP_K_MESSAGE = '"top_k" must be a whole number from 1 to 100';
/** How many results: `top_k` on the wire (semble's name), `limit` inside ({@link CodeIndex.search}). */
const TopKSchema = z
  .number({ error: TOP_K_MESSAGE })
  .int({ error: TOP_K_MESSAGE })
  .min(1, { error: TOP_K_MESSAGE })
  .max(100, { error: TOP_K_MESSAGE })
  .default(5)
  .describe('How many results to return.');

/** The arguments of `search`. */
export const SearchArgsSchema = z.object({
  query: z
    .string({ error: '"query" must be a non-empty string' })
    .trim()
    .min(1, { error: '"query" must be a non-empty string' })
    .describe('What you are looking for, in words or as a symbol name.'),
  repo: RepoSchema,
  mode: z
    .enum(SEARCH_MODES, {
      error: (issue) =>
        `"mode" must be one of ${SEARCH_MODES.join(', ')}; got ${JSON.stringify(issue.input)}`,
    })
    .optional()
    .describe('hybrid (default), semantic or bm25 (keywords).'),
  top_k: TopKSchema,
});
/** `search`'s arguments once checked: the query trimmed, `top_k` defaulted. */
export type SearchArgs = z.infer<typeof SearchArgsSchema>;

/** The arguments of `find_related`. */
export const FindRelatedArgsSchema = z.object({
  file_path: z
    .string({ error: '"file_path" must be a file path' })
    .min(1, { error: '"file_path" must be a file path' })
    .describe('The file, as search results print it (relative to the repo).'),
  line: z
    .number({ error: '"line" must be a whole number from 1' })
    .int({ error: '"line" must be a whole number from 1' })
    .min(1, { error: '"line" must be a whole number from 1' })
    .describe('A line inside the code of interest (1-based).'),
  repo: RepoSchema,
  top_k: TopKSchema,
});
/** `find_related`'s arguments once checked. */
export type FindRelatedArgs = z.infer<typeof FindRelatedArgsSchema>;

/**
 * A tool's input schema as it goes on the wire: the JSON Schema of what a caller may send, without the
 * `$schema` line and the safe-integer bounds zod adds to every integer (noise in a model's context).
 */
function inputSchemaOf(schema: z.ZodType): Tool['inputSchema'] {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io: 'input',
    override: ({ jsonSchema }) => {
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
    },
  });
  return json as Tool['inputSchema'];
}

/** The two tools, named and shaped as semble's so agents used to it work unchanged. */
export const SEARCH_TOOLS: Tool[] = [
  {
    name: 'search',
    description:
      'Find the code that does something, by meaning or by name: "where are retries handled", "parseConfig", ' +
      '"how is the cache evicted". Returns the best matching functions, classes or sections with their file, ' +
      'lines and code. Use it before reading files or grepping.',
    inputSchema: inputSchemaOf(SearchArgsSchema),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'find_related',
    description:
      'Find code like the code at a file and line — other implementations, callers, tests. Pass file_path and ' +
      'line from a search result.',
    inputSchema: inputSchemaOf(FindRelatedArgsSchema),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
];

/** What the tools search with. */
export interface SearchToolsOptions {
  cache: RepoCache;
  locate: (repo: string | undefined) => Promise<RepoLocation>;
  /** How long a call waits for an index still being built before it answers from the part built so far. */
  waitMs: number;
  /** The mode of a search that names none; default hybrid when there are vectors, else bm25. */
  mode?: SearchMode;
  vectors?: 'corpus' | 'background' | 'none';
  model?: StaticModel;
  /** The index of a `repo` in a shared store (`--store`): used instead of `cache` and `locate` when given. */
  store?: (repo: string | undefined) => Promise<SearchableIndex>;
  log: (message: string) => void;
}

/** A tools/call handler for the two tools: bad input and unusable repositories are `isError` results. */
export function searchToolsHandler(
  options: SearchToolsOptions,
): (name: string, args: Record<string, unknown>, ctx: ServerContext) => Promise<CallToolResult> {
  let warnedVectors = false;

  const indexOf = async (repo: string | undefined, ctx: ServerContext): Promise<Searched> => {
    if (options.store) return { index: await options.store(repo) };
    const { key, clone } = await options.locate(repo);
    return waitForIndex(options.cache.get(key, clone), key, ctx, options.waitMs);
  };

  const search = async (args: SearchArgs, ctx: ServerContext): Promise<CallToolResult> => {
    const { query, top_k: limit } = args;
    const { index, partial } = await indexOf(args.repo, ctx);
    const mode = args.mode ?? options.mode ?? (index.hasVectors ? 'hybrid' : 'bm25');
    if (mode !== 'bm25' && options.vectors === 'none' && !options.model && !warnedVectors) {
      warnedVectors = true;
      options.log('vectors are off (--no-vectors): semantic and hybrid searches rank with bm25');
    }
    const used: SearchMode = index.hasVectors ? mode : 'bm25';
    const hits = await index.search(query, limit, used);
    const so = partial ? ` (${partial})` : '';
    if (hits.length === 0) return textResult(`No results found.${so}`);
    return textResult(
      formatResults(
        `Search results for: ${JSON.stringify(query)} (mode=${used}${partial ? `, ${partial}` : ''})`,
        hits,
      ),
    );
  };

  const findRelated = async (args: FindRelatedArgs, ctx: ServerContext): Promise<CallToolResult> => {
    const { file_path: file, line, top_k: limit } = args;
    const { index } = await indexOf(args.repo, ctx);
    const path = isAbsolute(file) ? relative(index.root, file).split(sep).join('/') : file;
    if (!(await index.hasFile(path))) throw refuse(`${file} is not in the index of ${index.root}`);
    const chunk = await index.chunkAt(path, line);
    if (!chunk) throw refuse(`no indexed code at ${file}:${line} (past the end of the file?)`);
    const hits = await index.findRelated(chunk, limit);
    if (hits.length === 0) return textResult(`No related chunks found for ${file}:${line}.`);
    return textResult(formatResults(`Chunks related to ${file}:${line}`, hits));
  };

  return async (name, args, ctx) => {
    try {
      if (name === 'search') return await search(parsed(SearchArgsSchema, args), ctx);
      if (name === 'find_related') return await findRelated(parsed(FindRelatedArgsSchema, args), ctx);
    } catch (error) {
      if (isMcpkitError(error)) return failedResult(error.message);
      throw error;
    }
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  };
}

const refuse = (message: string) => new McpkitError('INVALID_ARGUMENT', message);

/** Arguments checked against a tool's schema; the first problem is the message. */
function parsed<T extends z.ZodType>(schema: T, args: Record<string, unknown>): z.infer<T> {
  const result = schema.safeParse(args);
  if (result.success) return result.data;
  throw refuse(result.error.issues[0]?.message ?? 'invalid arguments');
}

/** How long a call waits for a repository to be cloned before it says so. */
const CLONE_WAIT_MS = 30_000;

/** The index a call searches, and how far its build is when it is not complete. */
interface Searched {
  index: SearchableIndex;
  /** `partial: 6,012 of 15,143 files` while the build is under way. */
  partial?: string;
}

/**
 * The repository's index once built, within `waitMs` (progress notifications meanwhile when the client sent a
 * token); past that, the index as far as it is built (the answer says how far). Vectors are waited for within the
 * same budget, else the answer is bm25's.
 */
async function waitForIndex(
  repo: CachedRepo,
  key: string,
  ctx: ServerContext,
  waitMs: number,
): Promise<Searched> {
  const send = progressSender(ctx);
  const report = () => {
    if (repo.live?.complete) return;
    const { done, total } = repo.live?.progress ?? repo.progress;
    void send?.({ progress: done, ...(total ? { total } : {}), message: 'indexing' });
  };
  // Once at once (a client shows the build from the first moment), then every 250 ms while the call waits.
  if (send) report();
  const tick = send && setInterval(report, 250);
  let timer: NodeJS.Timeout | undefined;
  try {
    const waited = new Promise<undefined>((done) => {
      timer = setTimeout(() => done(undefined), waitMs);
    });
    const failed = (error: Error) => {
      throw new McpkitError('IO', `cannot index ${key}: ${error.message}`);
    };
    // A saved index answers as soon as it is read, before the walk that checks it is done.
    const usable = repo.started.then(() => repo.live?.usable).then(() => undefined);
    let index = await Promise.race([repo.index, usable, waited]).catch(failed);
    // Complete a moment before its promise says so: the same index, whole.
    if (!index && repo.live?.complete) index = repo.live;
    // A clone has nothing to answer from until it is fetched: wait for that (within CLONE_WAIT_MS).
    if (!index && !repo.live) {
      let cloneTimer: NodeJS.Timeout | undefined;
      const cloneWaited = new Promise<undefined>((done) => {
        cloneTimer = setTimeout(() => done(undefined), CLONE_WAIT_MS);
      });
      index = await Promise.race([repo.index, repo.started.then(() => undefined), cloneWaited])
        .catch(failed)
        .finally(() => clearTimeout(cloneTimer));
    }
    if (!index) {
      const live = repo.live;
      if (!live)
        throw new McpkitError(
          'SERVER_UNAVAILABLE',
          `${key} is still being cloned; search it again in a few seconds`,
        );
      // A saved index answers whole while the tree is checked against it; a new one answers for the files so far.
      if (live.loadedFrom) return { index: live, partial: 'saved index; checking files for changes' };
      const { done, total } = live.progress;
      // Before the walk is done there is no total: say what is under way rather than "0 of ? files".
      if (!total) return { index: live, partial: 'partial: listing the files, none indexed yet' };
      return {
        index: live,
        partial: `partial: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} file${total === 1 ? '' : 's'}`,
      };
    }
    await Promise.race([index.vectorsReady(), waited]);
    return { index };
  } finally {
    clearTimeout(timer);
    clearInterval(tick);
  }
}
