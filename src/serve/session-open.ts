import { randomUUID } from 'node:crypto';
import {
  type AuthInfo,
  type McpServerFactory,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { HttpSession, HttpSessions } from './http-sessions.js';
import { MemoryEventStore } from './memory-events.js';
import type { RedisState, SessionEventStore } from './redis-state.js';
import type { SessionSeal } from './session-seal.js';

/**
 * What replicas behind a load balancer share so a 2025 session works on any of them: the key that seals
 * session ids (`--session-key`), and optionally Redis (`--state`) for SSE resumption and ended sessions.
 */
export interface SharedSessions {
  seal: SessionSeal;
  state?: RedisState;
}

/** How one HTTP handler makes its 2025 sessions. */
export interface SessionMaker {
  factory: McpServerFactory;
  sessions: HttpSessions;
  shared?: SharedSessions | undefined;
}

/** How long a client whose SSE stream dropped waits before it reconnects (the SSE `retry` field). */
const RETRY_MS = 1000;

/** A session's transport and server, not yet initialized. */
async function build(
  maker: SessionMaker,
  id: string,
  events: SessionEventStore | undefined,
): Promise<{ transport: WebStandardStreamableHTTPServerTransport; session: HttpSession }> {
  const server = await maker.factory({ era: 'legacy' });
  const memory = events ? undefined : new MemoryEventStore();
  const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => id,
    // Every stream starts with a priming event and a `retry`, so a client whose stream drops resumes it
    // with Last-Event-ID (SEP-1699); replicas keep the events in Redis, one process in memory.
    eventStore: events ?? (memory as MemoryEventStore),
    retryInterval: RETRY_MS,
    onsessionclosed: (closed) => {
      memory?.dispose();
      maker.sessions.remove(closed, 'deleted');
      // Ended for every replica, not only this one: no other may rebuild it from the sealed id.
      void maker.shared?.state?.endSession(closed).catch(() => undefined);
    },
  });
  transport.onclose = () => {
    memory?.dispose();
    if (transport.sessionId) maker.sessions.remove(transport.sessionId, 'closed');
  };
  await server.connect(transport);
  const session = {
    id,
    transport,
    inFlight: new Set(),
    lastSeen: 0,
    close: () => {
      memory?.dispose();
      return server.close();
    },
  } as HttpSession;
  return { transport, session };
}

/** A new 2025 session for an `initialize` request; its id is sealed when replicas share a key. */
export async function startSession(
  maker: SessionMaker,
  request: Request,
  message: Record<string, unknown>,
  authInfo?: AuthInfo,
): Promise<Response> {
  const params = (message.params ?? {}) as Record<string, unknown>;
  const id = maker.shared ? maker.shared.seal.seal(params) : randomUUID();
  const { transport, session } = await build(maker, id, maker.shared?.state?.eventStore(id));
  const response = await transport.handleRequest(request, {
    parsedBody: message,
    ...(authInfo ? { authInfo } : {}),
  });
  if (transport.sessionId === id) maker.sessions.add(session);
  else void session.close().catch(() => undefined);
  return response;
}

/**
 * A session issued by another replica (or by this one before a restart), rebuilt from its sealed id: a
 * fresh server instance is given the session's `initialize` again, so it negotiates the same version and
 * knows the same client capabilities. Undefined for an id that is not sealed with our key, is too old,
 * or was ended (DELETE) on any replica.
 */
export async function resumeSession(maker: SessionMaker, id: string): Promise<HttpSession | undefined> {
  const shared = maker.shared;
  const sealed = shared?.seal.open(id);
  if (!shared || !sealed) return undefined;
  // Redis away: the sealed id still stands (availability first; a DELETE made meanwhile counts once it is back).
  if (await shared.state?.sessionEnded(id).catch(() => false)) return undefined;
  const events = shared.state?.eventStore(id);
  if (events) events.muted = true;
  const { transport, session } = await build(maker, id, events);
  const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  const init = { jsonrpc: '2.0', id: 'mcpkit-resume', method: 'initialize', params: sealed.init };
  const answered = await transport.handleRequest(
    new Request('http://replica/mcp', { method: 'POST', headers, body: JSON.stringify(init) }),
    { parsedBody: init },
  );
  await answered.text();
  const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
  await transport.handleRequest(
    new Request('http://replica/mcp', {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': id },
      body: JSON.stringify(initialized),
    }),
    { parsedBody: initialized },
  );
  if (events) events.muted = false;
  if (!answered.ok || transport.sessionId !== id) {
    await session.close().catch(() => undefined);
    return undefined;
  }
  maker.sessions.add(session);
  return session;
}
