import type { IncomingMessage, ServerResponse } from 'node:http';
import { isLegacyRequest, type McpServerFactory, type ServerEventBus } from '@modelcontextprotocol/server';
import type { BearerTokens } from './bearer-tokens.js';
import type { FrameIntercept } from './guarded-stdio.js';
import { InFlight } from './health.js';
import { refusalOf, rpcError } from './http-answers.js';
import { type Admitted, guard, WRITTEN } from './http-guard.js';
import { type Incoming, nodeIncoming, webIncoming } from './http-incoming.js';
import { writeResponse } from './http-io.js';
import { inSession } from './http-legacy.js';
import { createModernAdapter, MODERN } from './http-modern.js';
import { type HttpPages, PageSessions } from './http-pages.js';
import { HttpSessions, type SessionLimits } from './http-sessions.js';
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

/**
 * The Streamable HTTP endpoint of {@link serveOverHttp}, callable without a port: 2026-07-28 requests go
 * to the SDK's stateless `createMcpHandler`; 2025 clients get real sessions (`Mcp-Session-Id` issued on
 * initialize, 404 for an unknown one, DELETE ends one, idle ones reaped). Foreign Host/Origin headers are
 * refused (403), other paths 404, malformed bodies answered with -32700 / -32600 / -32602.
 *
 * One request path, two doors (`handle` for node, `request` for web requests): the guard
 * (`http-guard.ts`: every check, each once), then the router below (session, era), then one adapter per
 * era (`http-legacy.ts`, `http-modern.ts`).
 *
 * @example
 * const mcp = createHttpHandler(factory);
 * const res = await mcp.request('/mcp', { method: 'POST', headers, body: JSON.stringify(frame) });
 */
export function createHttpHandler(factory: McpServerFactory, options: HttpHandlerOptions = {}): HttpHandler {
  const onError =
    options.onError ?? ((error: Error) => process.stderr.write(`mcpkit serve: ${error.message}\n`));
  const sessions = new HttpSessions(options);
  const maker = { factory, sessions, shared: options.shared };
  const unsubscribe = options.shared?.state?.onSessionEnded((key) => sessions.endByKey(key));
  const modern = createModernAdapter(factory, { ...options, onError });
  const inFlight = new InFlight();
  let draining = false;
  const guardOptions = {
    ...options,
    path: options.path ?? '/mcp',
    maxBodyBytes: options.maxBodyBytes ?? 4 * 1024 * 1024,
    pageSessions: new PageSessions(),
    draining: () => draining,
  };

  /**
   * The router: a request naming a session goes to it (404 when it is gone); without one, a POST is
   * routed by its era — `Mcp-Protocol-Version: 2026-07-28` to the stateless adapter, a 2025 `initialize`
   * to a new session, anything else the SDK finds modern by its envelope to the SDK, the rest refused.
   */
  const route = async (admitted: Admitted): Promise<Response | undefined> => {
    const { incoming, checked } = admitted;
    const sessionId = incoming.header('mcp-session-id');
    if (sessionId !== undefined) {
      const session =
        sessions.use(sessionId) ?? (await sessions.resume(sessionId, () => resumeSession(maker, sessionId)));
      if (!session) return rpcError(404, null, -32001, 'Session not found');
      return inSession(session, admitted);
    }
    if (incoming.method !== 'POST' || !checked)
      return new Response(null, { status: 405, headers: { allow: 'POST' } });
    // The era is decided before the 2025 session path or our params check answers: a 2026-07-28 request
    // for a method that revision removed (initialize, logging/setLevel…) is the SDK's to answer (404,
    // -32601), not a bad 2025 request.
    if (incoming.header('mcp-protocol-version') === MODERN) return modern.serve(admitted, checked);
    if (!checked.ok) return refusalOf(checked);
    const request = incoming.toRequest();
    if (checked.message.method === 'initialize')
      return startSession(maker, request, checked.message, admitted.authInfo);
    if (!(await isLegacyRequest(request, checked.message))) return modern.fetch(admitted, checked.message);
    return rpcError(400, null, -32000, 'Bad Request: no valid session id');
  };

  /** The one path both doors take: guard, router, adapter; an unexpected failure is a 500, logged. */
  const serve = async (incoming: Incoming): Promise<Response | undefined> => {
    try {
      const admitted = await guard(incoming, guardOptions);
      if (admitted === WRITTEN) return undefined;
      return admitted instanceof Response ? admitted : await route(admitted);
    } catch (error) {
      onError(error instanceof Error ? error : new Error(String(error)));
      return rpcError(500, null, -32603, 'Internal error');
    }
  };

  return {
    async handle(req, res) {
      // An open GET stream is not a call in progress: a drain does not wait for it.
      if (req.method !== 'GET' && !draining) res.once('close', inFlight.begin());
      const response = await serve(nodeIncoming(req, res));
      if (!response) return;
      // A failure after the answer began (a page, a stream) cannot be answered: the connection ends.
      if (res.headersSent) res.destroy();
      else await writeResponse(res, response).catch(() => res.destroy());
    },
    async request(input, init) {
      const request =
        typeof input === 'string'
          ? new Request(new URL(input, 'http://127.0.0.1'), init)
          : new Request(input, init);
      const served = serve(webIncoming(request)).then(
        (response) => response ?? new Response(null, { status: 500 }),
      );
      // As fetch does: a request whose signal aborts before it is answered rejects (a cancelled call gets no answer).
      const { signal } = request;
      if (signal.aborted) throw signal.reason;
      return await new Promise<Response>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        served.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
      });
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
