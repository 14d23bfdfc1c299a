import type { Implementation, JSONRPCMessage } from '@modelcontextprotocol/server';
import type { ServerConnection } from '../client/index.js';
import {
  type FrameIntercept,
  type InterceptContext,
  modernResult,
  SERVER_INFO_META_KEY,
} from '../serve/index.js';
import type { Catalog } from './catalog.js';
import type { Downstream } from './downstream.js';
import { unavailable, withoutServerInfo } from './relayed.js';

/** What the fast path needs from its gateway. */
export interface FastPathHost {
  /** The built catalog; undefined while it is being rebuilt (the SDK path waits for it). */
  builtCatalog(): Catalog | undefined;
  /** The upstream, when it is ready. */
  readyConnection(server: string): ServerConnection | undefined;
  /** The client on this stdio connection, once its handshake made one. */
  downstream(): Downstream | undefined;
  serverInfo: Implementation;
}

type Id = string | number;
type Body = { result: Record<string, unknown> } | { error: unknown };
interface ToolCall {
  id: Id;
  params: { name: string; arguments?: Record<string, unknown> };
}

/**
 * The gateway's hot path: a `tools/call` for a listed tool, without a progress token, is relayed frame to
 * frame — the client's request re-addressed to the upstream and the upstream's result handed back — with
 * no SDK schema pass on either side. On stdio it serves the connection's client once its handshake is
 * done; over HTTP, 2026-07-28 requests. Anything else (and any call the path cannot take: meta tools,
 * unknown names, an upstream that is down or remote) goes through the SDK as usual. On stdio,
 * `notifications/cancelled` for a relayed call is relayed too; over HTTP a client that goes away cancels.
 */
export function toolCallFastPath(host: FastPathHost): FrameIntercept {
  /** Relayed stdio calls by the client's id (HTTP clients' ids are not unique across requests). */
  const inFlight = new Map<Id, (reason?: string) => void>();
  return (message, reply, context) => {
    const method = (message as { method?: unknown }).method;
    if (method === 'notifications/cancelled' && !context) {
      const params = (message as { params?: { requestId?: Id; reason?: string } }).params;
      const cancel = params?.requestId === undefined ? undefined : inFlight.get(params.requestId);
      if (!cancel) return false;
      cancel(params?.reason);
      return true;
    }
    if (method !== 'tools/call' || !isPlainCall(message)) return false;
    const downstream = context ? undefined : host.downstream();
    const era = context?.era ?? downstream?.era;
    const tool = host.builtCatalog()?.toolsByName.get(message.params.name);
    const connection = tool && host.readyConnection(tool.server);
    if (!era || !tool || !connection) return false;
    const { id } = message;
    const args = message.params.arguments ?? {};
    const answer = (body: Body) =>
      void reply({ jsonrpc: '2.0', id, ...body } as JSONRPCMessage).catch(() => undefined);
    const complete = (result: Record<string, unknown>) =>
      answer({ result: era === 'modern' ? modernResult(result, host.serverInfo) : result });
    let cancelled = false;
    // No call marking for elicitation routing: on stdio the one client is the target anyway, and a
    // 2026-07-28 client (HTTP here) cannot be asked.
    const upstreamId = connection.relayRequest(
      'tools/call',
      { name: tool.tool, arguments: args },
      (response) => {
        if (!context) inFlight.delete(id);
        if (cancelled) return; // no response to a cancelled request
        if ('error' in response) {
          if (connection.status === 'ready') return answer({ error: response.error });
          return complete(asRecord(unavailable(message.params.name, response.error.message)));
        }
        const result = response.result;
        const type = result.resultType;
        if (type === undefined || type === 'complete') {
          // The parsed frame is ours: reshaped in place for the client's era.
          if (era === 'modern') {
            result.resultType = 'complete';
            const meta = (result._meta as Record<string, unknown> | undefined) ?? {};
            meta[SERVER_INFO_META_KEY] = host.serverInfo;
            result._meta = meta;
            return answer({ result });
          }
          return answer({ result: withoutServerInfo(result, true) });
        }
        // A 2026-07-28 upstream wants input first: the SDK client knows how to get it and ask again.
        void sdkCall(connection, tool.tool, args, message.params.name, complete, answer);
      },
    );
    if (upstreamId === undefined) return false;
    const cancel = (reason?: string) => {
      cancelled = true;
      connection.relayCancel(upstreamId, reason);
    };
    if (context) watchClient(context, cancel);
    else inFlight.set(id, cancel);
    return true;
  };
}

function isPlainCall(message: unknown): message is ToolCall {
  const { id, params } = message as { id?: unknown; params?: Record<string, unknown> };
  if ((typeof id !== 'string' && typeof id !== 'number') || typeof params?.name !== 'string') return false;
  const meta = params._meta as { progressToken?: unknown } | undefined;
  if (meta?.progressToken !== undefined) return false;
  const args = params.arguments;
  return args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args));
}

function watchClient(context: InterceptContext, cancel: (reason?: string) => void): void {
  if (context.signal.aborted) cancel(String(context.signal.reason));
  else context.signal.addEventListener('abort', () => cancel(String(context.signal.reason)), { once: true });
}

async function sdkCall(
  connection: ServerConnection,
  tool: string,
  args: Record<string, unknown>,
  name: string,
  complete: (result: Record<string, unknown>) => void,
  answer: (body: Body) => void,
): Promise<void> {
  try {
    complete((await connection.callTool(tool, args)) as unknown as Record<string, unknown>);
  } catch (error) {
    const { code, message, data } = error as { code?: unknown; message?: string; data?: unknown };
    if (typeof code !== 'number') return complete(asRecord(unavailable(name, message ?? String(error))));
    answer({ error: { code, message, ...(data === undefined ? {} : { data }) } });
  }
}

const asRecord = (result: object) => result as Record<string, unknown>;
