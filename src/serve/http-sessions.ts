import type {
  JSONRPCMessage,
  RequestId,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { sessionKey } from './session-seal.js';

/** Why a 2025 session ended: the client's DELETE, idle past the timeout, evicted for a newer one, or shutdown. */
export type SessionEndReason = 'deleted' | 'idle' | 'evicted' | 'closed';

/** One 2025 session: its transport, its server instance, and the requests it is answering. */
export interface HttpSession {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  /** Request ids with an open POST stream: a second request with the same id would steal the first one's. */
  inFlight: Set<RequestId>;
  lastSeen: number;
  /** Closes the transport and the server instance (their streams end). */
  close(): Promise<void>;
}

/** Limits for the 2025 sessions of one HTTP handler. */
export interface SessionLimits {
  /** A session with no request and no message for this long is closed; default 30 min. */
  idleMs?: number;
  /** Sessions kept at once; a new one evicts the least recently used; default 1,000. */
  maxSessions?: number;
  /** Called once per session that ends, with why (for logs and status). */
  onSessionEnd?: (id: string, reason: SessionEndReason) => void;
}

export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;
export const DEFAULT_MAX_SESSIONS = 1000;

/**
 * The live 2025 sessions. Abandoned sessions (a client that never sends DELETE; the MCP Inspector's CLI is one)
 * cost about 21 KB of heap each behind the gateway (1,000 idle ones: +55 MB RSS; 6 KB of each was the task
 * schemas, since built once) and used to live until exit: they are closed after `idleMs` without traffic, and
 * past `maxSessions` the least recently used one makes room. Iteration order of the map is recency order (a use moves it to the end).
 */
export class HttpSessions {
  private readonly live = new Map<string, HttpSession>();
  private readonly idleMs: number;
  private readonly max: number;
  private sweeper: NodeJS.Timeout | undefined;
  /** Sessions being rebuilt from their sealed id: a second request for one waits for the first rebuild. */
  private readonly resuming = new Map<string, Promise<HttpSession | undefined>>();

  constructor(private readonly limits: SessionLimits = {}) {
    this.idleMs = limits.idleMs ?? DEFAULT_SESSION_IDLE_MS;
    this.max = Math.max(1, limits.maxSessions ?? DEFAULT_MAX_SESSIONS);
  }

  get size(): number {
    return this.live.size;
  }

  /** The session, marked as used now; undefined when unknown (never issued, or ended). */
  use(id: string): HttpSession | undefined {
    const session = this.live.get(id);
    if (session) this.touch(session);
    return session;
  }

  /**
   * A session this replica does not hold, rebuilt by `rebuild` (from its sealed id) once however many
   * requests for it arrive at the same time; undefined when it cannot be.
   */
  resume(id: string, rebuild: () => Promise<HttpSession | undefined>): Promise<HttpSession | undefined> {
    const pending = this.resuming.get(id);
    if (pending) return pending;
    const work = rebuild().finally(() => this.resuming.delete(id));
    this.resuming.set(id, work);
    return work;
  }

  /** Closes this replica's copy of a session another replica ended (by its {@link sessionKey}). */
  endByKey(key: string): void {
    for (const session of [...this.live.values()])
      if (sessionKey(session.id) === key) this.end(session, 'deleted');
  }

  /** Adds a session just initialized, making room first when at the cap. */
  add(session: HttpSession): void {
    while (this.live.size >= this.max) {
      const oldest = this.live.values().next().value as HttpSession;
      this.end(oldest, 'evicted');
    }
    session.lastSeen = Date.now();
    this.live.set(session.id, session);
    this.watchOutgoing(session);
    this.sweeper ??= this.startSweeper();
  }

  /** Forgets a session that ended by itself (DELETE or its transport closing). */
  remove(id: string, reason: SessionEndReason): void {
    if (!this.live.delete(id)) return;
    this.limits.onSessionEnd?.(id, reason);
    if (this.live.size === 0) this.stopSweeper();
  }

  async closeAll(): Promise<void> {
    this.stopSweeper();
    const all = [...this.live.values()];
    for (const session of all) this.remove(session.id, 'closed');
    await Promise.all(all.map((s) => s.close().catch(() => undefined)));
  }

  private touch(session: HttpSession): void {
    session.lastSeen = Date.now();
    this.live.delete(session.id);
    this.live.set(session.id, session);
  }

  private end(session: HttpSession, reason: SessionEndReason): void {
    this.remove(session.id, reason);
    void session.close().catch(() => undefined);
  }

  /** Traffic from the server counts as use too; an answer frees its request id. */
  private watchOutgoing(session: HttpSession): void {
    const transport = session.transport;
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options?: Parameters<typeof send>[1]) => {
      if (this.live.get(session.id) === session) this.touch(session);
      if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message))
        session.inFlight.delete(message.id);
      return send(message, options);
    };
  }

  private startSweeper(): NodeJS.Timeout {
    // Checks often enough that a session lives at most 1.5 × idleMs, rarely enough to cost nothing.
    const every = Math.min(Math.max(Math.floor(this.idleMs / 2), 5), 60_000);
    const timer = setInterval(() => {
      const cutoff = Date.now() - this.idleMs;
      for (const session of [...this.live.values()]) {
        if (session.lastSeen > cutoff) break; // recency order: the rest are newer
        this.end(session, 'idle');
      }
    }, every);
    timer.unref();
    return timer;
  }

  private stopSweeper(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
