import {
  CLIENT_CAPABILITIES_META_KEY,
  type Implementation,
  type JSONRPCMessage,
  type ProtocolEra,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { errorMessage } from '../internal/error-message.js';
import { type FrameIntercept, type InterceptContext, modernResult, progressTokenOf } from '../serve/index.js';
import type { Downstream } from './downstream.js';
import { withoutServerInfo } from './relayed.js';
import type { RoutedCall, ToolRouter } from './router.js';

/** Where a 2026-07-28 client's `tasks/get`, `tasks/update` and `tasks/cancel` go (`gateway/tasks/`). */
export interface FastPathTasks {
  /** The methods of the tasks extension routed to a task's upstream. */
  methods: ReadonlySet<string>;
  serve(
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>>;
}

/** What the fast path needs from its gateway. */
export interface FastPathHost {
  router: ToolRouter;
  tasks: FastPathTasks;
  /** The client on this stdio connection, once its handshake made one. */
  downstream(): Downstream | undefined;
  /** Who a 2026-07-28 request comes from (see `identityOf`). */
  identity(meta: unknown): string;
  serverInfo: Implementation;
}

type Id = string | number;
interface ToolCall {
  id: Id;
  params: { name: string; arguments?: Record<string, unknown>; _meta?: unknown; task?: unknown };
}

/**
 * The gateway's hot path, a frame adapter over the {@link ToolRouter}: a `tools/call` for a listed tool on a
 * ready upstream, without a progress token, is taken off the wire before the SDK server sees it, routed,
 * and its result written back as a frame — no SDK schema pass on the serving side. On stdio it serves the
 * connection's client once its handshake is done; over HTTP, 2026-07-28 requests. Anything else goes
 * through the SDK as usual. A call stays cancellable until it is answered: on stdio a
 * `notifications/cancelled` for it aborts its signal (and it is never answered); over HTTP, a client that
 * goes away does.
 */
export function toolCallFastPath(host: FastPathHost): FrameIntercept {
  /** Calls in flight on stdio, by the client's id (HTTP clients' ids are not unique across requests). */
  const inFlight = new Map<Id, AbortController>();
  return (message, reply, context) => {
    const method = (message as { method?: unknown }).method;
    if (method === 'notifications/cancelled' && !context) {
      const params = (message as { params?: { requestId?: Id; reason?: string } }).params;
      const controller = params?.requestId === undefined ? undefined : inFlight.get(params.requestId);
      if (!controller) return false;
      inFlight.delete(params?.requestId as Id);
      controller.abort(params?.reason ?? 'cancelled by the client');
      return true;
    }
    if (typeof method === 'string' && host.tasks.methods.has(method))
      return serveTaskRequest(host, message, reply, context);
    if (method !== 'tools/call' || !isPlainCall(message)) return false;
    const downstream = context ? undefined : host.downstream();
    const era: ProtocolEra | undefined = context?.era ?? downstream?.era;
    // A 2025 client's call as a task is the gateway's task to run (see tasks/task-handlers.ts).
    if (!era || (era === 'legacy' && 'task' in message.params)) return false;
    // The name is resolved and the upstream asked whether it takes calls here, once: the router is handed both.
    const ready = host.router.readyTarget(message.params.name);
    if (!ready) return false;
    const { id } = message;
    let signal: AbortSignal;
    if (context) signal = context.signal;
    else {
      const controller = new AbortController();
      inFlight.set(id, controller);
      signal = controller.signal;
    }
    const capabilities = (message.params._meta as Record<string, unknown> | undefined)?.[
      CLIENT_CAPABILITIES_META_KEY
    ];
    const call: RoutedCall = {
      ready,
      signal,
      era,
      ...(era === 'modern' && isObject(capabilities) ? { round: { clientCapabilities: capabilities } } : {}),
      identity: downstream?.identity ?? host.identity(message.params._meta),
      ...(downstream ? { downstream } : {}),
      ...(context?.authInfo?.clientId ? { client: context.authInfo.clientId } : {}),
    };
    const answer = (body: { result: Record<string, unknown> } | { error: unknown }) => {
      if (!context && inFlight.get(id)?.signal === signal) inFlight.delete(id);
      // A cancelled request gets no answer (the spec's rule; the client has forgotten the id).
      if (signal.aborted) return;
      void reply({ jsonrpc: '2.0', id, ...body } as JSONRPCMessage).catch(() => undefined);
    };
    host.router.call(message.params.name, message.params.arguments ?? {}, call).then(
      (result) => {
        const record = result as unknown as Record<string, unknown>;
        answer({
          result: era === 'modern' ? modernResult(record, host.serverInfo) : withoutServerInfo(record, true),
        });
      },
      (error: unknown) => answer({ error: wireError(error) }),
    );
    return true;
  };
}

/** A 2026-07-28 client's request about a task (the tasks extension), routed to the task's upstream. */
function serveTaskRequest(
  host: FastPathHost,
  message: JSONRPCMessage,
  reply: (message: JSONRPCMessage) => Promise<void>,
  context: InterceptContext | undefined,
): boolean {
  const { id, method, params } = message as { id?: unknown; method: string; params?: unknown };
  if ((typeof id !== 'string' && typeof id !== 'number') || !isObject(params)) return false;
  if ((context?.era ?? host.downstream()?.era) !== 'modern') return false;
  const answer = (body: { result: Record<string, unknown> } | { error: unknown }) =>
    void reply({ jsonrpc: '2.0', id, ...body } as JSONRPCMessage).catch(() => undefined);
  host.tasks.serve(method, params, context?.signal).then(
    (result) => answer({ result: modernResult(result, host.serverInfo) }),
    (error: unknown) => answer({ error: wireError(error) }),
  );
  return true;
}

/** A thrown error as a JSON-RPC error: a protocol error keeps its code and data, anything else is -32603. */
function wireError(error: unknown): { code: number; message: string; data?: unknown } {
  const { code, message, data } =
    error instanceof ProtocolError
      ? error
      : new ProtocolError(ProtocolErrorCode.InternalError, errorMessage(error));
  return { code, message, ...(data === undefined ? {} : { data }) };
}

function isPlainCall(message: unknown): message is ToolCall {
  const { id, params } = message as { id?: unknown; params?: Record<string, unknown> };
  if ((typeof id !== 'string' && typeof id !== 'number') || typeof params?.name !== 'string') return false;
  if (progressTokenOf(params._meta) !== undefined) return false;
  // A 2026-07-28 retry carries answers the SDK checks first (their shape, the state's).
  if ('inputResponses' in params || 'requestState' in params) return false;
  const args = params.arguments;
  return args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args));
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
