import type { CallToolResult, ProtocolEra } from '@modelcontextprotocol/server';

/**
 * How a tool call ended: `ok`; `tool-error` (the tool answered `isError: true`); `unavailable` (its
 * upstream is down: a tool error the gateway wrote); `protocol-error` (a JSON-RPC error, e.g. an unknown
 * tool); `cancelled` (the client gave up); `failed` (anything else thrown).
 */
export type CallOutcome = 'ok' | 'tool-error' | 'unavailable' | 'protocol-error' | 'cancelled' | 'failed';

/**
 * One tool call as the gateway's observers see it. The router fills it in as the call goes: the target
 * once the name is resolved, the outcome and duration at the end. `args` and `result` are the call's own
 * objects: an observer must not change them, and decides itself what of them it may keep.
 */
export interface CallRecord {
  /** Unique within this gateway process. */
  readonly id: number;
  /** When the call arrived (ISO). */
  readonly time: string;
  /** The exposed name called (`call_tool`'s inner name when called through it). */
  name: string;
  /** The upstream and its own tool name, once resolved. */
  server?: string;
  tool?: string;
  /** The upstream's protocol version, once the call reached it. */
  protocolVersion?: string;
  /** Who called: a bearer token's name, else the client's name (see `identityOf`). */
  client?: string;
  /** The profile the call came through (a view of the gateway's tools), when one did. */
  profile?: string;
  era?: ProtocolEra;
  args: Record<string, unknown>;
  /** Set at the end. */
  outcome?: CallOutcome;
  durationMs?: number;
  /** A protocol error's message, an upstream's reason for being down; never the arguments. */
  error?: string;
  result?: CallToolResult;
  /** Per-observer state (a span), keyed by the observer. */
  readonly marks: Map<CallObserver, unknown>;
}

/** Something that wants to know about tool calls: the dashboard, the audit log, tracing. */
export interface CallObserver {
  /** A call arrived (its target may not be known yet). */
  started?(call: CallRecord): void;
  /** The call is relayed to its upstream now (`server`, `tool`, `protocolVersion` are set). */
  upstreamStarted?(call: CallRecord): void;
  /** The upstream answered (or failed): `outcome` says how. */
  upstreamEnded?(call: CallRecord, outcome: CallOutcome): void;
  /** The call is answered: `outcome` and `durationMs` are set. */
  ended?(call: CallRecord): void;
  /** A request other than tools/call was answered (a listing, a resource read…). */
  requestEnded?(request: RequestRecord): void;
}

/** A request other than tools/call, as observers see it once answered. */
export interface RequestRecord {
  method: string;
  era: ProtocolEra;
  /** When it arrived (epoch ms) and how long it took. */
  startedAt: number;
  durationMs: number;
  outcome: 'ok' | 'error';
}

/**
 * The one seam between the gateway's {@link ToolRouter} and whoever watches its calls. With no observer
 * the router skips it entirely (`active` is false): watching costs nothing until someone subscribes.
 * An observer that throws is cut off from that call and reported once; it never fails the call.
 */
export class CallEvents {
  private observers: CallObserver[] = [];
  private nextId = 1;

  constructor(private readonly onObserverError: (error: Error) => void = () => undefined) {}

  /** True while someone observes calls. */
  get active(): boolean {
    return this.observers.length > 0;
  }

  /** True while someone observes requests besides tools/call (tracing does; the dashboard and audit do not). */
  get observesRequests(): boolean {
    return this.observers.some((o) => o.requestEnded !== undefined);
  }

  /** Adds an observer; returns a function that removes it. */
  subscribe(observer: CallObserver): () => void {
    this.observers = [...this.observers, observer];
    return () => {
      this.observers = this.observers.filter((o) => o !== observer);
    };
  }

  /** A new call: tells every observer. */
  begin(
    name: string,
    args: Record<string, unknown>,
    facts: { client?: string | undefined; profile?: string | undefined; era?: ProtocolEra | undefined },
  ): CallRecord {
    const call: CallRecord = {
      id: this.nextId++,
      time: new Date().toISOString(),
      name,
      args,
      marks: new Map(),
      ...definedOnly(facts),
    };
    startedAt.set(call, performance.now());
    this.each((o) => o.started?.(call));
    return call;
  }

  /** The call goes to its upstream now. */
  upstream(call: CallRecord, server: string, tool: string, protocolVersion: string | undefined): void {
    call.server = server;
    call.tool = tool;
    if (protocolVersion !== undefined) call.protocolVersion = protocolVersion;
    this.each((o) => o.upstreamStarted?.(call));
  }

  /** The upstream's part is over. */
  upstreamDone(call: CallRecord, outcome: CallOutcome): void {
    this.each((o) => o.upstreamEnded?.(call, outcome));
  }

  /** The call is answered with `result`, or failed with `error`. */
  end(call: CallRecord, answer: { result: CallToolResult } | { error: unknown; signal?: AbortSignal }): void {
    call.durationMs = performance.now() - (startedAt.get(call) ?? performance.now());
    if ('result' in answer) {
      call.result = answer.result;
      call.outcome = outcomeOf(answer.result);
      if (call.outcome === 'unavailable') call.error = textOf(answer.result);
    } else {
      call.outcome = answer.signal?.aborted
        ? 'cancelled'
        : isProtocolError(answer.error)
          ? 'protocol-error'
          : 'failed';
      call.error = answer.error instanceof Error ? answer.error.message : String(answer.error);
    }
    this.each((o) => o.ended?.(call));
  }

  /**
   * Reports every request `server` handles besides tools/call (which {@link begin} covers): its handlers,
   * as they are set from now on, tell observers when they answered. Used only while someone observes.
   */
  observeRequests(server: { setRequestHandler: (...args: never[]) => unknown }, era: ProtocolEra): void {
    const target = server as unknown as {
      setRequestHandler: (method: string, ...rest: unknown[]) => unknown;
    };
    const set = target.setRequestHandler.bind(target);
    target.setRequestHandler = (method: string, ...rest: unknown[]) => {
      const handler = rest.at(-1);
      if (method === 'tools/call' || typeof handler !== 'function') return set(method, ...rest);
      const observed = async (...args: unknown[]) => {
        const startedAt = Date.now();
        const t0 = performance.now();
        const report = (outcome: 'ok' | 'error') => {
          const request = { method, era, startedAt, durationMs: performance.now() - t0, outcome };
          this.each((o) => o.requestEnded?.(request));
        };
        try {
          const result: unknown = await (handler as (...a: unknown[]) => unknown)(...args);
          report('ok');
          return result;
        } catch (error) {
          report('error');
          throw error;
        }
      };
      return set(method, ...rest.slice(0, -1), observed);
    };
  }

  private each(tell: (observer: CallObserver) => void): void {
    for (const observer of this.observers) {
      try {
        tell(observer);
      } catch (error) {
        this.onObserverError(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }
}

/** Start times, off the record so observers see only what the record type says. */
const startedAt = new WeakMap<CallRecord, number>();

/** The gateway's own "server is down" answers (see `unavailable` in relayed.ts), told apart by identity. */
const unavailableResults = new WeakSet<CallToolResult>();

/** Marks a result as the gateway's answer for an upstream that cannot take the call. */
export function markUnavailable(result: CallToolResult): CallToolResult {
  unavailableResults.add(result);
  return result;
}

/** How a result ended: a tool error the gateway wrote for a down upstream is `unavailable`. */
export function outcomeOf(result: CallToolResult): CallOutcome {
  if (!result.isError) return 'ok';
  return unavailableResults.has(result) ? 'unavailable' : 'tool-error';
}

function isProtocolError(error: unknown): boolean {
  return typeof (error as { code?: unknown } | undefined)?.code === 'number';
}

function textOf(result: CallToolResult): string {
  return result.content
    .map((c) => (c.type === 'text' ? c.text : ''))
    .join(' ')
    .slice(0, 500);
}

function definedOnly(
  facts: Record<string, unknown>,
): Partial<Pick<CallRecord, 'client' | 'profile' | 'era'>> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(facts)) if (value !== undefined) out[key] = value;
  return out;
}
