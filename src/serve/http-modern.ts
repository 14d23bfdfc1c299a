import type {
  JSONRPCMessage,
  McpServerFactory,
  RequestId,
  ServerEventBus,
} from '@modelcontextprotocol/server';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { FrameCheck } from './frames.js';
import type { FrameIntercept } from './guarded-stdio.js';
import { refusalOf, rpcError } from './http-answers.js';
import type { Admitted } from './http-guard.js';
import type { Incoming } from './http-incoming.js';
import { paramHeaderMismatch } from './param-headers.js';
import { removedAtModern } from './request-params.js';

/** The protocol revision served statelessly (no session): a server instance per request. */
export const MODERN = '2026-07-28';

/** What the 2026-07-28 adapter needs of the endpoint's options. */
export interface ModernOptions {
  onError: (error: Error) => void;
  bus?: ServerEventBus | undefined;
  intercept?: FrameIntercept | undefined;
  toolSchema?: ((name: string) => unknown) | undefined;
}

/**
 * The 2026-07-28 era of the request path: stateless, a server instance per request from the SDK's
 * `createMcpHandler`. Before the SDK, in this order: a frame serve/ refused, an Accept header that allows
 * no answer (406), `Mcp-Param-*` headers that disagree with a proxy's tool schema (400, SEP-2243), and the
 * intercept (a proxy's hot path), offered only requests whose headers and body agree.
 */
export function createModernAdapter(factory: McpServerFactory, options: ModernOptions) {
  const sdk = createMcpHandler(factory, {
    legacy: 'reject',
    onerror: options.onError,
    ...(options.bus ? { bus: options.bus } : {}),
  });
  const fetch = (admitted: Admitted, parsedBody: unknown) =>
    sdk.fetch(admitted.incoming.toRequest(), {
      parsedBody,
      ...(admitted.authInfo ? { authInfo: admitted.authInfo } : {}),
    });

  return {
    /** A POST that says it is 2026-07-28 (`Mcp-Protocol-Version`), or one the SDK found modern by its envelope. */
    async serve(admitted: Admitted, checked: FrameCheck): Promise<Response | undefined> {
      const { incoming } = admitted;
      if (!checked.ok) {
        // A method this revision removed (initialize, ping, logging/setLevel…) is the SDK's 404 / -32601
        // to give, whatever its params; any other method's bad params get our one readable line.
        const parsed = checked.answer?.error.code === -32602 ? parseObject(admitted.text) : undefined;
        if (parsed && removedAtModern(parsed.method)) return fetch(admitted, parsed);
        return refusalOf(checked);
      }
      const message = checked.message;
      if (!acceptsAnAnswer(incoming.header('accept')))
        return rpcError(
          406,
          (message.id ?? null) as RequestId | null,
          -32000,
          'Not Acceptable: the client must accept application/json and text/event-stream',
        );
      const refused = paramRefusal(incoming, message, options.toolSchema);
      if (refused) return refused;
      if (options.intercept && isPlainModernRequest(incoming, message)) {
        let reply: (answer: JSONRPCMessage) => Promise<void> = async () => undefined;
        const answered = new Promise<Response | undefined>((resolve) => {
          reply = async (answer) => resolve(incoming.json(answer, statusOf(answer)));
        });
        const end = answerEnd(incoming.signal);
        const context = {
          era: 'modern' as const,
          signal: incoming.signal,
          onEnd: end.listen,
          ...(admitted.authInfo ? { authInfo: admitted.authInfo } : {}),
        };
        if (options.intercept(message as unknown as JSONRPCMessage, reply, context))
          return answered.finally(end.now);
        try {
          return end.after(await fetch(admitted, message));
        } catch (error) {
          end.now();
          throw error;
        }
      }
      return fetch(admitted, message);
    },
    fetch,
    close: () => sdk.close(),
  };
}

/**
 * When an answer is over, for {@link InterceptContext.onEnd}: at once for an answer without a body, else when
 * its body is read to the end or cancelled (the node door cancels it when the client leaves), or when the
 * client goes away. A response is wrapped only when something listens.
 */
function answerEnd(signal: AbortSignal) {
  const listeners: (() => void)[] = [];
  let over = false;
  const now = () => {
    if (over) return;
    over = true;
    signal.removeEventListener('abort', now);
    for (const listener of listeners.splice(0)) listener();
  };
  signal.addEventListener('abort', now, { once: true });
  return {
    now,
    listen: (listener: () => void) => {
      if (over) listener();
      else listeners.push(listener);
    },
    after(response: Response): Response {
      if (listeners.length === 0 || !response.body) {
        now();
        return response;
      }
      const reader = response.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const { done, value } = await reader.read();
            if (done) {
              controller.close();
              now();
            } else controller.enqueue(value);
          } catch (error) {
            controller.error(error);
            now();
          }
        },
        async cancel(reason) {
          now();
          await reader.cancel(reason).catch(() => undefined);
        },
      });
      return new Response(body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    },
  };
}

/**
 * The HTTP status of an intercept's answer, as the SDK gives its own: a JSON-RPC error from a handler is the
 * payload of a 200, but for MissingRequiredClientCapability (-32021), which the spec answers with 400 Bad
 * Request over HTTP (an upstream's -32021 relayed by a proxy included).
 */
function statusOf(answer: JSONRPCMessage): number {
  const error = (answer as { error?: { code?: unknown } }).error;
  return error?.code === MISSING_CAPABILITY ? 400 : 200;
}

/** MissingRequiredClientCapabilityError (SEP-2575). */
const MISSING_CAPABILITY = -32021;

/**
 * Whether an Accept header allows a JSON or an event-stream answer (absent: anything goes). One that
 * allows neither (`text/html` only) gets 406: the answer would be of a type the client refused.
 */
function acceptsAnAnswer(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((range) => {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    if (parameters.some((p) => /^q=0(?:\.0{0,3})?$/.test(p))) return false;
    return ['*/*', 'application/*', 'application/json', 'text/*', 'text/event-stream'].includes(type);
  });
}

/** SEP-2243 for a proxy's tools: the `Mcp-Param-*` headers of a 2026-07-28 `tools/call` against its schema. */
function paramRefusal(
  incoming: Incoming,
  message: Record<string, unknown>,
  toolSchema: ((name: string) => unknown) | undefined,
): Response | undefined {
  if (!toolSchema || message.method !== 'tools/call') return undefined;
  const params = message.params as { name?: unknown; arguments?: unknown } | undefined;
  if (typeof params?.name !== 'string') return undefined;
  const why = paramHeaderMismatch(toolSchema(params.name), params.arguments, incoming.header);
  if (why === undefined) return undefined;
  const id = (message.id ?? null) as RequestId | null;
  return rpcError(400, id, -32020, `Bad Request: the request headers and body disagree: ${why}`);
}

/**
 * A 2026-07-28 request whose headers and body agree (what the SDK checks before anything else): the only
 * kind an intercept is offered, so every other case keeps the SDK's exact answers.
 */
function isPlainModernRequest(incoming: Incoming, parsed: Record<string, unknown>): boolean {
  const header = incoming.header;
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
