import type {
  CreateMessageRequestParamsBase,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitResult,
  LoggingLevel,
  ProtocolEra,
  Root,
  Server,
  ServerContext,
} from '@modelcontextprotocol/server';
import type { ListKind, RuntimeHandlers } from '../client/index.js';
import { sessionKey } from '../serve/index.js';
import type { AskedMethod, Asker } from './input-flows.js';
import type { InputRound } from './upstream-relay.js';

/** One client connection (or, for stateless HTTP, one request) the gateway serves. */
export interface Downstream {
  server: Server;
  era: ProtocolEra;
  /**
   * A 2025-era connection's own identity, for what tool_search revealed to it: `session:<key>` from its
   * HTTP session id (the same on every replica that serves the session), else `session:<n>`; undefined
   * for a 2026-07-28 request, whose client is known by its `_meta` (see `identityOf`).
   */
  readonly identity?: string;
  /** The level the client asked for with logging/setLevel; undefined: everything. */
  logLevel?: LoggingLevel;
  /** Resource URIs the client subscribed to. */
  subscriptions: Set<string>;
}

/** A call in progress to an upstream, and where that upstream's requests during it go. */
export interface ActiveCall {
  /** The client the call is for; absent for a 2026-07-28 call the fast path relayed. */
  downstream?: Downstream | undefined;
  /** The SDK's request context; absent for a call the fast path relayed. */
  ctx?: ServerContext | undefined;
  /** Set for a 2026-07-28 client's call: its upstream's requests become `input_required` rounds. */
  ask?: Asker | undefined;
}

/** Who answers an upstream's request: a 2026-07-28 call's rounds, or a client asked directly. */
type Answerer =
  | { ask: Asker; downstream?: undefined; ctx?: undefined }
  | { ask?: undefined; downstream: Downstream; ctx?: ServerContext | undefined };

/** What a client must declare to be asked each kind of request. */
const CAPABILITY: Record<string, 'sampling' | 'elicitation' | 'roots'> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

const SEVERITY: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/**
 * The clients on the gateway's serving side: list_changed and log notifications go to all of them;
 * an upstream's sampling / elicitation / roots request goes to the client whose call it is serving (or,
 * outside a call, the latest 2025-era client), and is refused with a clear error when that client cannot
 * answer it.
 */
export class Downstreams {
  private readonly live = new Set<Downstream>();
  /** Resources named by 2026-07-28 clients' open listen streams, with how many streams name each. */
  private readonly listening = new Map<string, number>();
  private readonly active = new Map<string, Set<ActiveCall>>();
  private sessions = 0;

  /** Registers a server instance made by the gateway's factory; forgotten when it closes (`onClose`). */
  track(server: Server, era: ProtocolEra, onClose?: (downstream: Downstream) => void): Downstream {
    const own = `session:${++this.sessions}`;
    const downstream: Downstream =
      era === 'legacy'
        ? {
            server,
            era,
            subscriptions: new Set(),
            // Read when used: the session id exists once the transport is connected.
            get identity() {
              const id = server.transport?.sessionId;
              return id === undefined ? own : `session:${sessionKey(id)}`;
            },
          }
        : { server, era, subscriptions: new Set() };
    this.live.add(downstream);
    const previous = server.onclose;
    server.onclose = () => {
      this.live.delete(downstream);
      onClose?.(downstream);
      previous?.();
    };
    return downstream;
  }

  /** The client connected last (on stdio, the only one). */
  latest(): Downstream | undefined {
    let last: Downstream | undefined;
    for (const downstream of this.live) last = downstream;
    return last;
  }

  get size(): number {
    return this.live.size;
  }

  /** Tells every connected client (or only the one with this identity) that lists changed. */
  listChanged(lists: Iterable<ListKind>, identity?: string): void {
    const kinds = [...lists];
    for (const { server, identity: own } of this.live) {
      if (!server.transport || (identity !== undefined && own !== identity)) continue;
      for (const list of kinds) {
        const sent =
          list === 'tools'
            ? server.sendToolListChanged()
            : list === 'prompts'
              ? server.sendPromptListChanged()
              : server.sendResourceListChanged();
        sent.catch(() => undefined);
      }
    }
  }

  /** Tells the clients subscribed to a resource that it changed. */
  resourceUpdated(uri: string): void {
    for (const { server, subscriptions } of this.live) {
      if (server.transport && subscriptions.has(uri))
        server.sendResourceUpdated({ uri }).catch(() => undefined);
    }
  }

  /**
   * A 2026-07-28 client's `subscriptions/listen` stream names a resource (it gets the updates from the
   * gateway's event bus); `release` when the stream ends. Counted, as a stream is no client of its own.
   */
  hold(uri: string): void {
    this.listening.set(uri, (this.listening.get(uri) ?? 0) + 1);
  }

  release(uri: string): void {
    const left = (this.listening.get(uri) ?? 0) - 1;
    if (left > 0) this.listening.set(uri, left);
    else this.listening.delete(uri);
  }

  /** Whether any client (or 2026-07-28 listen stream) is still subscribed to a resource. */
  subscribed(uri: string): boolean {
    if (this.listening.has(uri)) return true;
    for (const { subscriptions } of this.live) if (subscriptions.has(uri)) return true;
    return false;
  }

  /** An upstream's log message, to every client whose level lets it through. */
  log(level: LoggingLevel, logger: string | undefined, data: unknown): void {
    for (const { server, logLevel } of this.live) {
      if (!server.transport) continue;
      if (logLevel !== undefined && SEVERITY.indexOf(level) < SEVERITY.indexOf(logLevel)) continue;
      server
        .notification({
          method: 'notifications/message',
          params: { level, data, ...(logger !== undefined ? { logger } : {}) },
        })
        .catch(() => undefined);
    }
  }

  /** Marks a call to `upstream` on behalf of a client; the returned function ends it. */
  begin(upstream: string, call: ActiveCall): () => void {
    let calls = this.active.get(upstream);
    if (!calls) {
      calls = new Set();
      this.active.set(upstream, calls);
    }
    calls.add(call);
    return () => {
      calls.delete(call);
      if (calls.size === 0 && this.active.get(upstream) === calls) this.active.delete(upstream);
    };
  }

  /** Handlers for the Runtime: upstream requests, answered by a downstream client. */
  handlers(): RuntimeHandlers {
    return {
      sampling: async (params, { server }) =>
        (await this.answer(server, 'sampling/createMessage', params)) as CreateMessageResult,
      elicitation: async (params, { server }) =>
        (await this.answer(server, 'elicitation/create', params)) as ElicitResult,
      roots: async ({ server }) => ((await this.answer(server, 'roots/list', {})) as { roots: Root[] }).roots,
    };
  }

  /**
   * Each input request of a 2026-07-28 upstream's `input_required` result, put to the 2025 client of the
   * call one at a time (a client shows one question at once): the retry's round.
   */
  async answerAll(
    server: string,
    result: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<InputRound> {
    const requests = (result.inputRequests ?? {}) as Record<string, { method?: unknown; params?: unknown }>;
    // Null prototype: a key named `__proto__` is an answer like any other, not the object's prototype.
    const inputResponses: Record<string, unknown> = Object.create(null);
    for (const [key, request] of Object.entries(requests))
      inputResponses[key] = await this.answer(server, request?.method, request?.params, signal);
    const { requestState } = result;
    return { inputResponses, ...(typeof requestState === 'string' ? { requestState } : {}) };
  }

  /**
   * An upstream's request to a client (sampling, elicitation, roots: a 2025 upstream's mid-call request, or
   * one input request of a 2026-07-28 upstream's `input_required` result), put to the client whose call it
   * serves; resolves with that client's answer. `signal` (the call's) withdraws the question.
   */
  async answer(upstream: string, method: unknown, params: unknown, signal?: AbortSignal): Promise<unknown> {
    const capability =
      typeof method === 'string' && Object.hasOwn(CAPABILITY, method) ? CAPABILITY[method] : undefined;
    if (!capability)
      throw new Error(
        `mcpkit gateway: "${upstream}" asked for input the gateway cannot ask a client for (${String(method)})`,
      );
    const given = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
    const { downstream, ctx, ask } = this.target(upstream, capability);
    if (ask) return ask(method as AskedMethod, given);
    const options = signal ? { signal } : undefined;
    if (capability === 'roots') return downstream.server.listRoots(undefined, options);
    if (capability === 'sampling') {
      const asked = given as unknown as CreateMessageRequestParamsBase;
      return ctx
        ? ctx.mcpReq.requestSampling(asked, options)
        : downstream.server.createMessage(asked, options);
    }
    const asked = given as unknown as ElicitRequestFormParams;
    return ctx ? ctx.mcpReq.elicitInput(asked, options) : downstream.server.elicitInput(asked, options);
  }

  private target(upstream: string, capability: 'sampling' | 'elicitation' | 'roots'): Answerer {
    // The latest call to that upstream is the one asking (the usual case is one call at a time). A stdio
    // request carries no link to the call it serves: with calls of several clients in progress, asking the
    // latest could show one client another's question (or let it answer it), so it is refused instead.
    const calls = [...(this.active.get(upstream) ?? [])];
    const what = capability === 'roots' ? 'roots/list' : capability;
    if (new Set(calls.map((active) => active.downstream ?? active.ask)).size > 1)
      throw new Error(
        `mcpkit gateway: calls of several clients are in progress on "${upstream}" and its ${what} request does not say which one it serves; refused`,
      );
    const call = calls[calls.length - 1];
    if (call?.ask) return { ask: call.ask };
    // Outside a call (or for a relayed one): the latest 2025-era client, else the latest client at all, so a
    // 2026-07-28 one gets the refusal that says why.
    const downstream =
      call?.downstream ??
      [...this.live].reverse().find((candidate) => candidate.era === 'legacy') ??
      this.latest();
    if (!downstream)
      throw new Error(`mcpkit gateway: no client is connected to answer ${what} for "${upstream}"`);
    if (downstream.era === 'modern') {
      throw new Error(
        `mcpkit gateway: the client speaks MCP 2026-07-28, where servers cannot send ${what} requests; refused`,
      );
    }
    if (downstream.server.getClientCapabilities()?.[capability] === undefined) {
      throw new Error(`mcpkit gateway: the client does not support ${what}; refused`);
    }
    return call?.downstream ? { downstream: call.downstream, ctx: call.ctx } : { downstream };
  }
}
