import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { createMcpHandler, isLegacyRequest, type McpServerFactory } from '@modelcontextprotocol/server';
import { McpkitError } from '../errors/index.js';
import { checkFrame } from './frames.js';
import type { FrameIntercept } from './guarded-stdio.js';
import { isAllowedRequest } from './host-check.js';

/** Options for {@link serveOverHttp}. */
export interface ServeHttpOptions {
  /** Default 127.0.0.1: a local server is not reachable from the network unless asked. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Host names accepted besides localhost / 127.0.0.1 / [::1] (when serving beyond this machine). */
  allowedHosts?: string[];
  /** Largest request body accepted; default 4 MiB. */
  maxBodyBytes?: number;
  onError?: (error: Error) => void;
  /** 2026-07-28 requests to handle before the SDK (a proxy's hot path); see {@link FrameIntercept}. */
  intercept?: FrameIntercept;
}

/** A running HTTP server. */
export interface HttpServerHandle {
  /** The MCP endpoint, e.g. http://127.0.0.1:41234/mcp. */
  url: string;
  port: number;
  close(): Promise<void>;
}

interface LegacySession {
  transport: NodeStreamableHTTPServerTransport;
  close(): Promise<void>;
}

/**
 * Serves an MCP server over Streamable HTTP for both generations on one endpoint: 2026-07-28 requests go
 * to the SDK's stateless `createMcpHandler`; 2025 clients get real sessions (`Mcp-Session-Id` issued on
 * initialize, 404 for an unknown one, DELETE ends one). Foreign Host/Origin headers are refused (403),
 * malformed bodies answered with -32700 / -32600.
 */
export async function serveOverHttp(
  factory: McpServerFactory,
  options: ServeHttpOptions = {},
): Promise<HttpServerHandle> {
  const onError =
    options.onError ?? ((error: Error) => process.stderr.write(`mcpkit serve: ${error.message}\n`));
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const modern = createMcpHandler(factory, { legacy: 'reject', onerror: onError });
  const modernNode = toNodeHandler(modern);
  const sessions = new Map<string, LegacySession>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!isAllowedRequest(req.headers, options.allowedHosts)) {
      return json(res, 403, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: 'Forbidden: Host or Origin not allowed' },
      });
    }
    const sessionHeader = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    const session = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (sessionId !== undefined && !session) {
      return json(res, 404, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32001, message: 'Session not found' },
      });
    }
    if (req.method !== 'POST') {
      if (session && (req.method === 'GET' || req.method === 'DELETE'))
        return session.transport.handleRequest(req, res);
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const body = await readBody(req, maxBody);
    if (body === undefined) {
      return json(res, 413, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Request body too large' },
      });
    }
    const checked = checkFrame(body);
    if (!checked.ok) return json(res, 400, checked.answer);
    const parsed: unknown = checked.message;
    if (session) return session.transport.handleRequest(req, res, parsed);
    if (options.intercept && isPlainModernRequest(req, parsed)) {
      const aborted = new AbortController();
      res.once('close', () => {
        if (!res.writableFinished) aborted.abort('the client went away');
      });
      const reply = async (message: unknown) => json(res, 200, message);
      if (options.intercept(parsed as never, reply, { era: 'modern', signal: aborted.signal })) return;
    }
    if ((parsed as { method?: unknown }).method === 'initialize') return startSession(req, res, parsed);
    // Inside a request handler `method` and `url` are always set; the SDK's type says so, node's does not.
    const nodeReq = req as IncomingMessage & { method: string; url: string };
    if (!(await isLegacyRequest(await toWebRequest(nodeReq, parsed), parsed)))
      return modernNode(nodeReq, res, parsed);
    return json(res, 400, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'Bad Request: no valid session id' },
    });
  };

  const startSession = async (req: IncomingMessage, res: ServerResponse, parsed: unknown) => {
    const server = await factory({ era: 'legacy' });
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, close: () => server.close() });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, parsed);
  };

  const host = options.host ?? '127.0.0.1';
  const http = takeReservation(host, options.port) ?? (await listen(host, options.port ?? 0));
  // A reserved port answered 503 while the server was being built; from now on it serves.
  http.removeAllListeners('request');
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      onError(error instanceof Error ? error : new Error(String(error)));
      if (!res.headersSent)
        json(res, 500, { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } });
    });
  });
  const { port } = http.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/mcp`,
    port,
    close: async () => {
      for (const session of sessions.values()) await session.close().catch(() => undefined);
      sessions.clear();
      await modern.close().catch(() => undefined);
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
  http.on('request', (_req: IncomingMessage, res: ServerResponse) => {
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

const MODERN = '2026-07-28';

/**
 * A 2026-07-28 request whose headers and body agree (what the SDK checks before anything else): the only
 * kind an intercept is offered, so every other case keeps the SDK's exact answers.
 */
function isPlainModernRequest(req: IncomingMessage, parsed: unknown): boolean {
  const message = parsed as {
    method?: unknown;
    id?: unknown;
    params?: { name?: unknown; _meta?: Record<string, unknown> };
  };
  if (typeof message.method !== 'string' || message.id === undefined) return false;
  if (req.headers['mcp-protocol-version'] !== MODERN || req.headers['mcp-method'] !== message.method)
    return false;
  if (message.params?._meta?.['io.modelcontextprotocol/protocolVersion'] !== MODERN) return false;
  const name = req.headers['mcp-name'];
  if (name !== undefined && name !== message.params?.name) return false;
  return String(req.headers.accept ?? '').includes('application/json');
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** The request body as text; undefined when it is larger than `limit`. */
async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
