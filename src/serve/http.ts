import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { McpkitError } from '../errors/index.js';
import type { FrameIntercept } from './guarded-stdio.js';
import { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from './http-handler.js';

/** Another MCP endpoint on the same port (a gateway profile): its own path, server and hot path. */
export interface HttpMount {
  /** E.g. `/mcp/review`. */
  path: string;
  factory: McpServerFactory;
  intercept?: FrameIntercept;
}

/** Options for {@link serveOverHttp}: where to listen, and the endpoint's {@link HttpHandlerOptions}. */
export interface ServeHttpOptions extends HttpHandlerOptions {
  /** Default 127.0.0.1: a local server is not reachable from the network unless asked. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /**
   * More endpoints beside `path`, each with its own sessions and the same Host/Origin checks, tokens and
   * limits.
   */
  mounts?: readonly HttpMount[];
}

/** A running HTTP server. */
export interface HttpServerHandle {
  /** The MCP endpoint, e.g. http://127.0.0.1:41234/mcp. */
  url: string;
  port: number;
  /** Live 2025 sessions (idle ones are reaped, see {@link HttpHandlerOptions}). */
  readonly sessions: number;
  /** Stops accepting (new connections and requests) and waits up to `ms` for the calls in progress. */
  drain(ms: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Serves an MCP server over Streamable HTTP on host:port: {@link createHttpHandler}'s endpoint (both
 * generations, 2025 sessions, Host/Origin checks) behind a node `http` server. A port reserved with
 * {@link reserveHttpPort} is taken over.
 */
export async function serveOverHttp(
  factory: McpServerFactory,
  options: ServeHttpOptions = {},
): Promise<HttpServerHandle> {
  const handler = createHttpHandler(factory, options);
  const mounted = new Map<string, HttpHandler>();
  for (const { path, factory: mountFactory, intercept } of options.mounts ?? []) {
    const { intercept: _main, ...shared } = options;
    mounted.set(
      path,
      createHttpHandler(mountFactory, { ...shared, path, ...(intercept ? { intercept } : {}) }),
    );
  }
  const handlers = [handler, ...mounted.values()];
  const host = options.host ?? '127.0.0.1';
  const http = takeReservation(host, options.port) ?? (await listen(host, options.port ?? 0));
  // A reserved port answered 503 while the server was being built; from now on it serves.
  http.removeAllListeners('request');
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chosen = mounted.size > 0 ? mounted.get((req.url ?? '/').split('?')[0] as string) : undefined;
    void (chosen ?? handler).handle(req, res);
  });
  const { port } = http.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}${options.path ?? '/mcp'}`,
    port,
    get sessions() {
      return handlers.reduce((sum, h) => sum + h.sessions, 0);
    },
    drain: (ms) => {
      http.close();
      return handler.drain(ms);
    },
    close: async () => {
      await Promise.all(handlers.map((h) => h.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** A port bound ahead of serving, see {@link reserveHttpPort}. */
export interface HttpPortReservation {
  host: string;
  /** The bound port (the one chosen by the system when 0 was asked for). */
  port: number;
  /** Frees the port unless {@link serveOverHttp} took it over. */
  release(): Promise<void>;
}

/** Ports reserved and not yet served, by `host:port`. */
const reserved = new Map<string, Server>();

/**
 * Binds host:port now and holds it (answering 503 until served), so that a server which takes long to
 * build (upstreams to start, a repository to index) fails on a busy port at once, not after the work.
 * {@link serveOverHttp} with the same host and the reservation's port takes the socket over.
 */
export async function reserveHttpPort(
  options: { host?: string; port?: number } = {},
): Promise<HttpPortReservation> {
  const host = options.host ?? '127.0.0.1';
  const http = await listen(host, options.port ?? 0);
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/healthz') return void res.writeHead(200).end('ok\n');
    res.writeHead(503, { 'retry-after': '1' }).end('starting');
  });
  const { port } = http.address() as AddressInfo;
  const key = `${host}:${port}`;
  reserved.set(key, http);
  return {
    host,
    port,
    release: async () => {
      if (reserved.get(key) !== http) return;
      reserved.delete(key);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function takeReservation(host: string, port: number | undefined): Server | undefined {
  if (!port) return undefined;
  const http = reserved.get(`${host}:${port}`);
  reserved.delete(`${host}:${port}`);
  return http;
}

/** An HTTP server listening on host:port; a failure is one LISTEN_FAILED error naming host:port and why. */
async function listen(host: string, port: number): Promise<Server> {
  const http = createServer();
  await new Promise<void>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) => {
      const bracketed = host.includes(':') ? `[${host}]` : host;
      const where = port === 0 ? bracketed : `${bracketed}:${port}`;
      reject(
        new McpkitError('LISTEN_FAILED', `cannot listen on ${where}: ${listenProblem(error)}`, {
          cause: error,
        }),
      );
    });
    http.listen(port, host, () => resolve());
  });
  return http;
}

/** Why a listen failed, in words (the errno code stays on the error's cause). */
function listenProblem(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'EADDRINUSE':
      return 'the port is in use';
    case 'EACCES':
      return 'permission denied (ports below 1024 need privileges)';
    case 'EADDRNOTAVAIL':
      return "the address is not one of this machine's";
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name does not resolve';
    default:
      return error.message;
  }
}
