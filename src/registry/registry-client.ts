import { McpkitError } from '../errors/index.js';
import { errorMessage } from '../internal/error-message.js';
import { describeRemoteError } from '../internal/remote-failure.js';
import {
  type ServerList,
  ServerListSchema,
  type ServerResponse,
  ServerResponseSchema,
} from './server-json.js';

/** The official MCP Registry; `--registry`, the `registry` config setting or `MCPKIT_REGISTRY_URL` point elsewhere. */
export const DEFAULT_REGISTRY_URL = 'https://registry.modelcontextprotocol.io';

/** Options for {@link createRegistryClient}. */
export interface RegistryClientOptions {
  /** The registry's base URL (without `/v0.1`); default {@link DEFAULT_REGISTRY_URL}. */
  url?: string;
  /** Stops every request (Ctrl-C). */
  signal?: AbortSignal;
  /** Give up on one request after this many milliseconds (default 15 000). */
  timeoutMs?: number;
}

/** Options for {@link RegistryClient.search}. */
export interface RegistrySearchOptions {
  /** At most this many servers (default 30); pages are followed by cursor until reached. */
  limit?: number;
  /** Every version, not only the latest of each server. */
  allVersions?: boolean;
}

/** A client of the MCP Registry REST API v0.1 (read-only: find, fetch a version, list versions). */
export interface RegistryClient {
  readonly url: string;
  /** Servers whose name matches `words` (the registry's substring search), latest versions by default. */
  search(words: string, options?: RegistrySearchOptions): Promise<ServerResponse[]>;
  /** One version of a server (`latest` by default); SERVER_NOT_FOUND when the registry has none. */
  get(name: string, version?: string): Promise<ServerResponse>;
}

const PAGE_SIZE = 100;
const MAX_PAGES = 20;

/**
 * Creates a registry client over `fetch`.
 * @example const found = await createRegistryClient().search('filesystem');
 */
export function createRegistryClient(options: RegistryClientOptions = {}): RegistryClient {
  const url = (options.url ?? DEFAULT_REGISTRY_URL).replace(/\/+$/, '');
  const getJson = (path: string, what: string) => fetchJson(url, path, what, options);
  return {
    url,
    async search(words, { limit = 30, allVersions = false } = {}) {
      const found: ServerResponse[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES && found.length < limit; page++) {
        const query = new URLSearchParams({ limit: String(Math.min(PAGE_SIZE, limit - found.length)) });
        if (words.trim() !== '') query.set('search', words.trim());
        if (!allVersions) query.set('version', 'latest');
        if (cursor !== undefined) query.set('cursor', cursor);
        const body = await getJson(`/v0.1/servers?${query}`, 'the server list');
        const list = parse(ServerListSchema, body, url, 'the server list') as ServerList;
        found.push(...list.servers);
        cursor = list.metadata?.nextCursor;
        if (!cursor || list.servers.length === 0) break;
      }
      return found.slice(0, limit);
    },
    async get(name, version = 'latest') {
      const path = `/v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`;
      const what = version === 'latest' ? `server "${name}"` : `server "${name}" version ${version}`;
      const body = await getJson(path, what);
      if (body === undefined) {
        throw new McpkitError(
          'SERVER_NOT_FOUND',
          `${what} is not in the registry ${url}; search for it with "mcpkit find <words>"`,
          { server: name },
        );
      }
      return parse(ServerResponseSchema, body, url, what) as ServerResponse;
    },
  };
}

/** GETs JSON from the registry: undefined on 404; one-line errors for a registry down, HTML, or a failure. */
async function fetchJson(
  base: string,
  path: string,
  what: string,
  options: RegistryClientOptions,
): Promise<unknown> {
  const target = `${base}${path}`;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 15_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(target, { headers: { accept: 'application/json' }, signal });
  } catch (error) {
    if (options.signal?.aborted) throw new McpkitError('CANCELLED', 'cancelled', { cause: error });
    const failure = describeRemoteError(error, target);
    const cause = failure ? `${failure.cause}` : timeout.aborted ? 'timed out' : errorMessage(error);
    throw new McpkitError(
      'REQUEST_FAILED',
      `the registry ${base} did not answer for ${what}: ${cause}; check --registry (or MCPKIT_REGISTRY_URL)`,
      { cause: error },
    );
  }
  if (response.status === 404) {
    await response.body?.cancel();
    return undefined;
  }
  const type = response.headers.get('content-type') ?? '';
  const text = await response.text();
  if (!response.ok) {
    throw new McpkitError(
      'REQUEST_FAILED',
      `the registry ${base} answered HTTP ${response.status} ${response.statusText} for ${what}${errorField(text)}`,
    );
  }
  if (!/\bjson\b/i.test(type) && !/^\s*[[{]/.test(text)) {
    const kind = type.split(';')[0]?.trim() || 'no content type';
    throw new McpkitError(
      'REQUEST_FAILED',
      `the registry ${base} answered ${kind}, not JSON, for ${what}: is it an MCP Registry (GET ${base}/v0.1/servers)?`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new McpkitError(
      'REQUEST_FAILED',
      `the registry ${base} answered invalid JSON for ${what} (${errorMessage(error)})`,
    );
  }
}

/** ` (Server not found)`: the `error` field of a JSON error body, if any. */
function errorField(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown; detail?: unknown };
    const said = typeof body.error === 'string' ? body.error : body.detail;
    return typeof said === 'string' ? `: ${said}` : '';
  } catch {
    return '';
  }
}

function parse<T>(
  schema: {
    safeParse(
      v: unknown,
    ):
      | { success: true; data: T }
      | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
  },
  body: unknown,
  base: string,
  what: string,
): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join('.')}` : '';
  throw new McpkitError(
    'REQUEST_FAILED',
    `the registry ${base} answered ${what} in a shape mcpkit does not know${where}: ${issue?.message ?? 'invalid'}`,
  );
}
