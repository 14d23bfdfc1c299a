import type { Implementation, JSONRPCMessage } from '@modelcontextprotocol/server';
import type { ServerConnection } from '../client/index.js';
import type { StdioIntercept } from '../serve/index.js';
import type { Catalog } from './catalog.js';
import type { Downstream } from './downstream.js';
import { SERVER_INFO, withoutServerInfo } from './relayed.js';

/** What the fast path needs from its gateway. */
export interface FastPathHost {
  /** The built catalog; undefined while it is being rebuilt (the SDK path waits for it). */
  builtCatalog(): Catalog | undefined;
  /** The upstream, when it is ready. */
  readyConnection(server: string): ServerConnection | undefined;
  /** The client on this stdio connection, once its handshake made one. */
  downstream(): Downstream | undefined;
  /** Marks a call in flight (for routing the upstream's own requests back to this client). */
  begin(server: string, downstream: Downstream): () => void;
  serverInfo: Implementation;
}

type Id = string | number;

/**
 * The gateway's hot path on stdio: a `tools/call` for a listed tool, without a progress token, is relayed
 * frame to frame — the client's request re-addressed to the upstream and the upstream's result handed
 * back — with no SDK schema pass on either side. Everything else (and any call the path cannot take:
 * meta tools, unknown names, an upstream that is down or remote) goes through the SDK as usual.
 * `notifications/cancelled` for a relayed call is relayed too; the client then gets no response.
 */
export function toolCallFastPath(host: FastPathHost): StdioIntercept {
  const inFlight = new Map<Id, (reason?: string) => void>();
  return (message, reply) => {
    const method = (message as { method?: unknown }).method;
    if (method === 'notifications/cancelled') {
      const params = (message as { params?: { requestId?: Id; reason?: string } }).params;
      const cancel = params?.requestId === undefined ? undefined : inFlight.get(params.requestId);
      if (!cancel) return false;
      cancel(params?.reason);
      return true;
    }
    if (method !== 'tools/call') return false;
    const id = (message as { id?: Id }).id;
    const params = (
      message as { params?: { name?: unknown; arguments?: unknown; _meta?: { progressToken?: unknown } } }
    ).params;
    if (id === undefined || typeof params?.name !== 'string' || params._meta?.progressToken !== undefined)
      return false;
    const args = params.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return false;
    const downstream = host.downstream();
    const tool = host.builtCatalog()?.toolsByName.get(params.name);
    const connection = tool && host.readyConnection(tool.server);
    if (!downstream || !tool || !connection) return false;
    const name = params.name;
    const end = host.begin(tool.server, downstream);
    const answer = (body: { result: Record<string, unknown> } | { error: unknown }) =>
      void reply({ jsonrpc: '2.0', id, ...body } as JSONRPCMessage).catch(() => undefined);
    const complete = (result: Record<string, unknown>) =>
      answer({ result: downstream.era === 'modern' ? stamped(result, host.serverInfo) : result });
    const upstreamId = connection.relayRequest(
      'tools/call',
      { name: tool.tool, arguments: args },
      (response) => {
        if (!inFlight.delete(id)) return end(); // cancelled: no response
        if ('error' in response) {
          end();
          if (connection.status === 'ready') return answer({ error: response.error });
          return complete(unavailable(name, response.error.message));
        }
        const { resultType, ...rest } = response.result;
        if (resultType === undefined || resultType === 'complete') {
          end();
          return complete(withoutServerInfo(rest));
        }
        // A 2026-07-28 upstream wants input first: the SDK client knows how to get it and ask again.
        connection
          .callTool(tool.tool, args as Record<string, unknown>)
          .then(
            (result) => complete(result as unknown as Record<string, unknown>),
            (error: { code?: unknown; message?: string; data?: unknown }) => {
              if (typeof error.code !== 'number')
                return complete(unavailable(name, error.message ?? String(error)));
              const data = error.data === undefined ? {} : { data: error.data };
              return answer({ error: { code: error.code, message: error.message, ...data } });
            },
          )
          .finally(end);
      },
    );
    if (upstreamId === undefined) {
      end();
      return false;
    }
    inFlight.set(id, (reason) => {
      inFlight.delete(id);
      connection.relayCancel(upstreamId, reason);
    });
    return true;
  };
}

/** A 2026-07-28 result carries `resultType` and the serving side's identity. */
function stamped(result: Record<string, unknown>, serverInfo: Implementation): Record<string, unknown> {
  const meta = (result._meta as Record<string, unknown> | undefined) ?? {};
  return { ...result, resultType: 'complete', _meta: { ...meta, [SERVER_INFO]: serverInfo } };
}

const unavailable = (name: string, message: string) => ({
  content: [{ type: 'text', text: `Tool ${name} is unavailable: ${message}` }],
  isError: true,
});
