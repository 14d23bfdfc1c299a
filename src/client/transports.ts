import {
  type JSONRPCMessage,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { isStdioServer, type RemoteServer, type ServerEntry } from '../config/index.js';
import { childEnvironment } from '../internal/child-environment.js';
import type { RemoteAuth } from './auth/remote-auth.js';
import { listenLinesAsEvents } from './listen-lines.js';
import { requestFetch } from './request-fetch.js';
import { StdioTransport } from './stdio-transport.js';

/** What opening a transport needs besides the entry. */
export interface OpenTransportOptions {
  parentEnv: Readonly<Record<string, string | undefined>>;
  onStderrLine?: (line: string) => void;
  /** A remote entry over the legacy HTTP+SSE transport (an `sse` entry always is). */
  legacySse?: boolean;
  /** OAuth for a remote entry: the SDK's provider and the fetch that keeps the token fresh. */
  auth?: RemoteAuth | undefined;
  /** The server's name (its sandbox state and denials are kept under it). */
  server?: string;
}

/** A fresh transport for an (expanded) entry: stdio, Streamable HTTP or legacy SSE. */
export function openTransport(entry: ServerEntry, options: OpenTransportOptions): Transport {
  if (isStdioServer(entry)) {
    return completeByDefault(
      new StdioTransport({
        command: entry.command,
        args: entry.args ?? [],
        env: childEnvironment(options.parentEnv, entry.env, entry.inheritEnv === true),
        ...(entry.cwd === undefined ? {} : { cwd: entry.cwd }),
        ...(options.onStderrLine ? { onStderrLine: options.onStderrLine } : {}),
        ...(options.server === undefined ? {} : { server: options.server }),
        ...(entry.sandbox === undefined ? {} : { sandbox: entry.sandbox }),
      }),
    );
  }
  return remoteTransport(entry, options.legacySse === true || entry.type === 'sse', options.auth);
}

function remoteTransport(entry: RemoteServer, sse: boolean, auth: RemoteAuth | undefined): Transport {
  const url = new URL(entry.url);
  const requestInit: RequestInit = entry.headers ? { headers: entry.headers } : {};
  const fetch = auth?.fetch ?? requestFetch;
  const authProvider = auth ? { authProvider: auth.transportProvider } : {};
  if (sse) {
    return new SSEClientTransport(url, {
      requestInit,
      fetch,
      ...authProvider,
      eventSourceInit: {
        fetch: (input, init) =>
          fetch(input, {
            ...init,
            headers: { ...(init?.headers as Record<string, string>), ...entry.headers },
          }),
      },
    });
  }
  return completeByDefault(
    new StreamableHTTPClientTransport(url, {
      requestInit,
      fetch: listenLinesAsEvents(fetch),
      ...authProvider,
      // Claude Code's policy for a dropped stream: 5 attempts from 1 s, doubling.
      reconnectionOptions: {
        initialReconnectionDelay: 1000,
        maxReconnectionDelay: 16_000,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 5,
      },
    }),
  );
}

/** The 2026-07-28 results that must carry cache hints (SEP-2549): the lists and `resources/read`. */
const CACHEABLE = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/**
 * Liberal in what we accept from servers in the field, where the SDK client would refuse a 2026-07-28 result:
 * one without `resultType` (the conformance suite's own reference server omits it on complete results) is read
 * as complete — the meaning an absent one has on earlier revisions; a list or `resources/read` result without
 * its cache hints is read as `ttlMs: 0`, `cacheScope: 'private'` (keep it for no one: the safest reading, and
 * the SDK's own for `server/discover`). Only once the server has answered `server/discover` (the 2026 era); a
 * 2025 server's results are left as they are.
 */
export function completeByDefault<T extends Transport>(transport: T): T {
  const discovering = new Set<unknown>();
  const cacheable = new Set<unknown>();
  let modern = false;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('method' in message && 'id' in message) {
      if (message.method === 'server/discover') discovering.add(message.id);
      else if (CACHEABLE.has(message.method)) cacheable.add(message.id);
    } else if ('method' in message && message.method === 'notifications/cancelled') {
      // A request given up gets no answer: its id is forgotten here, or the sets would only grow.
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
      discovering.delete(id);
      cacheable.delete(id);
    }
    return send(message, options);
  };
  let handler: Transport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set: (next: Transport['onmessage']) => {
      handler = next && ((message, extra) => next(read(message), extra));
    },
  });
  const read = (message: JSONRPCMessage): JSONRPCMessage => {
    if ('method' in message || !('id' in message)) return message;
    const hinted = cacheable.delete(message.id);
    const discovered = discovering.delete(message.id);
    if (!('result' in message) || typeof message.result !== 'object' || message.result === null)
      return message;
    if (discovered) modern = true;
    if (!modern) return message;
    const result = message.result as Record<string, unknown>;
    const missing = {
      ...('resultType' in result ? {} : { resultType: 'complete' }),
      ...(hinted && !('ttlMs' in result) ? { ttlMs: 0 } : {}),
      ...(hinted && !('cacheScope' in result) ? { cacheScope: 'private' } : {}),
    };
    if (Object.keys(missing).length === 0) return message;
    return { ...message, result: { ...result, ...missing } } as JSONRPCMessage;
  };
  return transport;
}
