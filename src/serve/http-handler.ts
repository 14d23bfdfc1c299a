import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  type JSONRPCMessage,
  type McpServerFactory,
  type RequestId,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import type { BearerTokens } from './bearer-tokens.js';
import { checkFrame } from './frames.js';
import type { FrameIntercept } from './guarded-stdio.js';
import { drainingResponse, InFlight, probeResponse } from './health.js';
import { isAllowedRequest } from './host-check.js';
import { readNodeBody, readWebBody, writeResponse } from './http-io.js';
import { type HttpPages, PageSessions, pageRequest } from './http-pages.js';
import { type HttpSession, HttpSessions, type SessionLimits } from './http-sessions.js';
import { paramHeaderMismatch } from './param-headers.js';
import type { ProtectedResource } from './protected-resource.js';
import { resumeSession, type SharedSessions, startSession } from './session-open.js';

/** Options for {@link createHttpHandler} (and {@link serveOverHttp}). */
export interface HttpHandlerOptions extends SessionLimits {
  /** The one path that serves MCP; every other path gets 404. Default `/mcp`. */
  path?: string;
  /** Host names accepted besides localhost / 127.0.0.1 / [::1] (when serving beyond this machine). */
  allowedHosts?: string[];
  /** Largest request body accepted; default 4 MiB. */
  maxBodyBytes?: number;
  onError?: (error: Error) => void;
  /** 2026-07-28 requests to handle before the SDK (a proxy's hot path); see {@link FrameIntercept}. */
  intercept?: FrameIntercept;
  /**
   * Bearer tokens every request must carry (`Authorization: Bearer …`); without one of them, 401 with
   * `WWW-Authenticate: Bearer` (RFC 6750) before a byte of the body is read. Unset: no auth (loopback use).
   */
  tokens?: BearerTokens;
  /**
   * OAuth: every request needs a JWT access token of the external authorization server for this resource
   * (401/403 per the MCP authorization spec otherwise), and RFC 9728 metadata is served at
   * `/.well-known/oauth-protected-resource[<path>]`.
   */
  protectedResource?: ProtectedResource;
  /**
   * Where the server publishes changes for 2026-07-28 clients' `subscriptions/listen` streams (list
   * changes, resource updates); default: the SDK's own in-process bus.
   */
  bus?: ServerEventBus;
  /**
   * A tool's input schema by its name, for a server whose tools the SDK does not know (a proxy): a
   * 2026-07-28 `tools/call` whose `Mcp-Param-*` headers disagree with what that schema marks `x-mcp-header`
   * is refused with 400 / -32020 (SEP-2243), as the SDK does for its own tools.
   */
  toolSchema?: (name: string) => unknown;
  /** Pages served beside the endpoint (the gateway's dashboard), with its Host/Origin check and tokens. */
  pages?: HttpPages;
  /**
   * Replicas behind a load balancer: 2025 session ids sealed with a shared key, so any replica rebuilds a
   * session it never saw; with Redis, SSE events and ended sessions shared too (see docs/scale-out.md).
   */
  shared?: SharedSessions;
  /** Whether what is served is loaded, for `/readyz` (default: always once serving). */
  ready?: () => boolean;
}

/** An MCP endpoint without a port: node's `(req, res)` and a fetch-style `request` for in-process use. */
export interface HttpHandler {
  /** Serves one request of a node `http` server. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /**
   * Serves one web-standard request in-process, like Hono's `app.request()`; a string is a path or URL
   * (`request('/mcp', { method: 'POST', body })`). Also usable as the `fetch` of an SDK client transport.
   */
  request(input: Request | string, init?: RequestInit): Promise<Response>;
  /** Live 2025 sessions. */
  readonly sessions: number;
  /**
   * Stops taking requests (503, `/readyz` says draining) and waits up to `ms` for those being answered;
   * true when they all finished.
   */
  drain(ms: number): Promise<boolean>;
  /** Ends every session and in-flight modern exchange. */
  close(): Promise<void>;
}

const MODERN = '2026-07-28';

const rpcError = (status: number, id: RequestId | null, code: number, message: string, headers = {}) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

/**
 * The Streamable HTTP endpoint of {@link serveOverHttp}, callable without a port: 2026-07-28 requests go
 * to the SDK's stateless `createMcpHandler`; 2025 clients get real sessions (`Mcp-Session-Id` issued on
 * initialize, 404 for an unknown one, DELETE ends one, idle ones reaped). Foreign Host/Origin headers are
 * refused (403), other paths 404, malformed bodies answered with -32700 / -32600 / -32602.
 *
 * @example
 * const mcp = createHttpHandler(factory);
 * const res = await mcp.request('/mcp', { method: 'POST', headers, body: JSON.stringify(frame) });
 */
export function createHttpHandler(factory: McpServerFactory, options: HttpHandlerOptions = {}): HttpHandler {
  const onError =
    options.onError ?? ((error: Error) => process.stderr.write(`mcpkit serve: ${error.message}\n`));
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const path = options.path ?? '/mcp';
  const modern = createMcpHandler(factory, {
    legacy: 'reject',
    onerror: onError,
    ...(options.bus ? { bus: options.bus } : {}),
  });
  const sessions = new HttpSessions(options);
  const pageSessions = new PageSessions();
  const maker = { factory, sessions, shared: options.shared };
  const unsubscribe = options.shared?.state?.onSessionEnded((key) => sessions.endByKey(key));
  const inFlight = new InFlight();
  let draining = false;

  /** SEP-2243 for a proxy's tools: the `Mcp-Param-*` headers of a 2026-07-28 `tools/call` against its schema. */
  const paramRefusal = (
    header: (name: string) => string | null | undefined,
    message: Record<string, unknown>,
  ): Response | undefined => {
    if (!options.toolSchema || message.method !== 'tools/call') return undefined;
    if (header('mcp-protocol-version') !== MODERN) return undefined;
    const params = message.params as { name?: unknown; arguments?: unknown } | undefined;
    if (typeof params?.name !== 'string') return undefined;
    const why = paramHeaderMismatch(options.toolSchema(params.name), params.arguments, header);
    if (why === undefined) return undefined;
    const id = (message.id ?? null) as RequestId | null;
    return rpcError(400, id, -32020, `Bad Request: the request headers and body disagree: ${why}`);
  };

  /** Host/Origin and path: checked before a byte of the body is read (credentials next, in `authOf`). */
  const refusal = (headers: IncomingHttpHeaders, pathname: string, method = 'GET'): Response | undefined => {
    if (!isAllowedRequest(headers, options.allowedHosts))
      return rpcError(403, null, -32000, 'Forbidden: Host or Origin not allowed');
    const metadata = options.protectedResource?.metadataResponse(pathname, method);
    if (metadata) return metadata;
    if (pathname !== path) return rpcError(404, null, -32000, `Not Found: MCP is served on ${path}`);
    return undefined;
  };

  /**
   * Who the request's credentials name (after `refusal` let it through; still before the body is read): the
   * bearer token's name, or the OAuth token's client and scopes — for the server's handlers
   * (`ctx.http.authInfo`) and the intercept; the 401 when the token is missing or wrong. One token check per
   * request. A static token itself is never passed on.
   */
  const authOf = async (
    authorization: string | undefined,
    pathname: string,
  ): Promise<AuthInfo | Response | undefined> => {
    if (options.tokens) {
      const name = options.tokens.match(authorization);
      if (name !== undefined) return { token: '', clientId: name, scopes: [] };
      // RFC 6750 §3.1: no credentials → the bare challenge; wrong ones → invalid_token.
      const challenge =
        authorization === undefined
          ? 'Bearer realm="mcpkit"'
          : 'Bearer realm="mcpkit", error="invalid_token"';
      return rpcError(401, null, -32001, 'Unauthorized: a valid bearer token is required', {
        'www-authenticate': challenge,
      });
    }
    return options.protectedResource?.authorize(authorization, pathname);
  };

  const route = async (
    request: Request,
    text: string | undefined,
    checked = checkFrame(text ?? ''),
    authInfo?: AuthInfo,
  ): Promise<Response> => {
    const auth = authInfo ? { authInfo } : {};
    const sessionId = request.headers.get('mcp-session-id') ?? undefined;
    const session =
      sessionId === undefined
        ? undefined
        : (sessions.use(sessionId) ??
          (await sessions.resume(sessionId, () => resumeSession(maker, sessionId))));
    if (sessionId !== undefined && !session) return rpcError(404, null, -32001, 'Session not found');
    if (request.method !== 'POST') {
      if (session && (request.method === 'GET' || request.method === 'DELETE'))
        return session.transport.handleRequest(request, auth);
      return new Response(null, { status: 405, headers: { allow: 'POST' } });
    }
    // The era is decided before the 2025 session path or our params check sees the frame: a 2026-07-28
    // request for a method that revision removed (initialize, logging/setLevel, resources/subscribe…) is
    // the SDK's to answer (404, -32601), not a bad 2025 request.
    const modernWire = !session && request.headers.get('mcp-protocol-version') === MODERN;
    if (!checked.ok) {
      const answer = checked.answer;
      const parsed = modernWire && answer?.error.code === -32602 ? parseObject(text) : undefined;
      if (parsed) return modern.fetch(request, { parsedBody: parsed, ...auth });
      return answer ? rpcError(400, answer.id, answer.error.code, answer.error.message) : accepted();
    }
    const message = checked.message;
    if (session) return inSession(session, request, message, authInfo);
    const refused = paramRefusal((name) => request.headers.get(name), message);
    if (refused) return refused;
    if (options.intercept && isPlainModernRequest((name) => request.headers.get(name), message)) {
      let reply: (answer: JSONRPCMessage) => Promise<void> = async () => undefined;
      const answered = new Promise<Response>((resolve) => {
        reply = async (answer) => resolve(Response.json(answer));
      });
      const context = { era: 'modern' as const, signal: request.signal, ...auth };
      if (options.intercept(message as unknown as JSONRPCMessage, reply, context)) return answered;
    }
    if (message.method === 'initialize' && !modernWire)
      return startSession(maker, request, message, authInfo);
    if (!(await isLegacyRequest(request, message)))
      return modern.fetch(request, { parsedBody: message, ...auth });
    return rpcError(400, null, -32000, 'Bad Request: no valid session id');
  };

  /**
   * A POST in a 2025 session. The transport keeps one stream per request id: a second request with an id
   * still in flight took the first one's stream and one of them never ended, so it is refused; a request
   * cancelled by `notifications/cancelled` gets no answer (MCP), so its stream is ended here.
   */
  const inSession = async (
    session: HttpSession,
    request: Request,
    message: Record<string, unknown>,
    authInfo: AuthInfo | undefined,
  ) => {
    const id = message.id as RequestId | undefined;
    const isRequest = typeof message.method === 'string' && id !== undefined;
    if (isRequest) {
      if (session.inFlight.has(id))
        return rpcError(409, id, -32600, `Invalid Request: id ${JSON.stringify(id)} is already in use`);
      session.inFlight.add(id);
    }
    let response: Response | undefined;
    try {
      response = await session.transport.handleRequest(request, {
        parsedBody: message,
        ...(authInfo ? { authInfo } : {}),
      });
    } finally {
      // Refused (or failed) before the server saw it: no answer will free the id.
      if (isRequest && (response === undefined || response.status >= 400)) session.inFlight.delete(id);
    }
    if (message.method === 'notifications/cancelled') {
      const cancelled = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (cancelled !== undefined && session.inFlight.delete(cancelled))
        session.transport.closeSSEStream(cancelled);
    }
    return response;
  };

  const failed = (error: unknown): Response => {
    onError(error instanceof Error ? error : new Error(String(error)));
    return rpcError(500, null, -32603, 'Internal error');
  };

  return {
    async handle(req, res) {
      const pathname = (req.url ?? '/').split('?')[0] ?? '/';
      const probe = probeResponse(pathname, options.ready, draining);
      if (probe) return await writeResponse(res, probe);
      if (draining) return await writeResponse(res, drainingResponse());
      // An open GET stream is not a call in progress: a drain does not wait for it.
      if (req.method !== 'GET') res.once('close', inFlight.begin());
      try {
        if (
          options.pages &&
          pathname !== path &&
          options.pages.owns(pathname) &&
          !hasTwoHosts(req.rawHeaders)
        )
          return await pageRequest(req, res, options.pages, { ...options, sessions: pageSessions });
        const refused = hasTwoHosts(req.rawHeaders)
          ? rpcError(400, null, -32600, 'Bad Request: more than one Host header')
          : refusal(req.headers, pathname, req.method);
        if (refused) return await writeResponse(res, refused);
        const authInfo = await authOf(req.headers.authorization, pathname);
        if (authInfo instanceof Response) return await writeResponse(res, authInfo);
        let text: string | undefined;
        if (req.method === 'POST') {
          text = await readNodeBody(req, maxBody);
          if (text === undefined) return await writeResponse(res, tooLarge());
        }
        const aborted = new AbortController();
        res.once('close', () => {
          if (!res.writableFinished) aborted.abort('the client went away');
        });
        const checked = checkFrame(text ?? '');
        // The hot path of a proxy, answered without building web Request/Response objects (they halved
        // the gateway's HTTP throughput).
        const header = (name: string) => {
          const value = req.headers[name];
          return Array.isArray(value) ? value[0] : value;
        };
        if (checked.ok && header('mcp-session-id') === undefined) {
          const refused = paramRefusal(header, checked.message);
          if (refused) return await writeResponse(res, refused);
        }
        if (
          checked.ok &&
          options.intercept &&
          header('mcp-session-id') === undefined &&
          isPlainModernRequest(header, checked.message)
        ) {
          const reply = async (answer: JSONRPCMessage) => {
            res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
          };
          const context = {
            era: 'modern' as const,
            signal: aborted.signal,
            ...(authInfo ? { authInfo } : {}),
          };
          if (options.intercept(checked.message as unknown as JSONRPCMessage, reply, context)) return;
        }
        const request = new Request(`http://${req.headers.host}${req.url}`, {
          method: req.method ?? 'GET',
          headers: webHeaders(req.headers),
          signal: aborted.signal,
        });
        await writeResponse(res, await route(request, text, checked, authInfo).catch(failed));
      } catch (error) {
        if (!res.headersSent) await writeResponse(res, failed(error));
        else res.destroy();
      }
    },
    async request(input, init) {
      const request =
        typeof input === 'string'
          ? new Request(new URL(input, 'http://127.0.0.1'), init)
          : new Request(input, init);
      const url = new URL(request.url);
      const probe = probeResponse(url.pathname, options.ready, draining);
      if (probe) return probe;
      if (draining) return drainingResponse();
      const headers = {
        host: request.headers.get('host') ?? url.host,
        origin: request.headers.get('origin') ?? undefined,
        authorization: request.headers.get('authorization') ?? undefined,
      };
      const refused = refusal(headers, url.pathname, request.method);
      if (refused) return refused;
      const authInfo = await authOf(headers.authorization, url.pathname);
      if (authInfo instanceof Response) return authInfo;
      let text: string | undefined;
      if (request.method === 'POST') {
        text = await readWebBody(request, maxBody);
        if (text === undefined) return tooLarge();
      }
      return route(request, text, undefined, authInfo).catch(failed);
    },
    get sessions() {
      return sessions.size;
    },
    drain(ms) {
      draining = true;
      return inFlight.idle(ms);
    },
    async close() {
      unsubscribe?.();
      await sessions.closeAll();
      await modern.close().catch(() => undefined);
    },
  };
}

const accepted = () => new Response(null, { status: 202 });

/** The JSON object a frame holds (its params already found wanting), for the SDK to answer. */
function parseObject(text: string | undefined): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text ?? '');
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** 413 with `Connection: close`: the rest of the upload is not read, so the connection cannot be reused. */
const tooLarge = () => rpcError(413, null, -32600, 'Request body too large', { connection: 'close' });

/** RFC 9112 §3.2: a request with more than one Host header gets 400 (which one would we check?). */
function hasTwoHosts(rawHeaders: readonly string[]): boolean {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === 'host' && ++seen > 1) return true;
  }
  return false;
}

function webHeaders(headers: IncomingHttpHeaders): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    result.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return result;
}

/**
 * A 2026-07-28 request whose headers and body agree (what the SDK checks before anything else): the only
 * kind an intercept is offered, so every other case keeps the SDK's exact answers.
 */
function isPlainModernRequest(
  header: (name: string) => string | null | undefined,
  parsed: Record<string, unknown>,
): boolean {
  const message = parsed as {
    method?: unknown;
    id?: unknown;
    params?: { name?: unknown; _meta?: Record<string, unknown> };
  };
  if (typeof message.method !== 'string' || message.id === undefined) return false;
  if (header('mcp-protocol-version') !== MODERN || header('mcp-method') !== message.method) return false;
  if (message.params?._meta?.['io.modelcontextprotocol/protocolVersion'] !== MODERN) return false;
  // SEP-2243: a request naming its target (tools/call, prompts/get) must carry Mcp-Name (surrounding
  // whitespace is not part of it); one without it, or with another name, is the SDK's 400 to give.
  const name = header('mcp-name')?.trim();
  // The tasks extension (SEP-2663) names the task: tasks/get, tasks/update and tasks/cancel carry its id.
  const target = message.method.startsWith('tasks/')
    ? (message.params as { taskId?: unknown } | undefined)?.taskId
    : message.params?.name;
  if (target !== undefined ? name !== target : name != null) return false;
  return (header('accept') ?? '').includes('application/json');
}
