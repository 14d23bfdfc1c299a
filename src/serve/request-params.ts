import { specTypeSchemas } from '@modelcontextprotocol/server';

/**
 * The SDK validates the params of its built-in methods inside the handler and answers a failure with
 * -32603 and a raw zod dump (`tools/list`, `initialize`, `logging/setLevel`), or not at all (a `_meta`
 * that is not an object, a progress token of the wrong type). JSON-RPC asks for -32602: serve/ checks
 * those params against the SDK's own spec schemas first and answers with one readable line. A Map, not a
 * plain object: a method named `constructor` or `__proto__` found `Object.prototype`'s members there and
 * crashed every stdio server (issue 34).
 */
const SCHEMA_OF = new Map<string, keyof typeof specTypeSchemas>(
  Object.entries({
    initialize: 'InitializeRequest',
    ping: 'PingRequest',
    'server/discover': 'DiscoverRequest',
    'logging/setLevel': 'SetLevelRequest',
    'tools/list': 'ListToolsRequest',
    'prompts/list': 'ListPromptsRequest',
    'prompts/get': 'GetPromptRequest',
    'resources/list': 'ListResourcesRequest',
    'resources/templates/list': 'ListResourceTemplatesRequest',
    'resources/read': 'ReadResourceRequest',
    'resources/subscribe': 'SubscribeRequest',
    'resources/unsubscribe': 'UnsubscribeRequest',
    'completion/complete': 'CompleteRequest',
  } as const),
);

interface Issue {
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
  message: string;
}

/**
 * Why the params of a request are invalid, as one line (`params.cursor: expected string, received
 * number`); undefined when they are fine or the method is not one the SDK validates this way. `tools/call`
 * is left to the SDK (it already answers -32602) except for its `_meta`, checked cheaply: it is the hot path.
 */
export function invalidParams(
  method: string,
  params: Record<string, unknown> | undefined,
): string | undefined {
  const name = SCHEMA_OF.get(method);
  if (name === undefined) return invalidMeta(params?._meta);
  const schema = specTypeSchemas[name] as unknown as {
    '~standard': { validate(value: unknown): { issues?: readonly Issue[] } | Promise<unknown> };
  };
  const result = schema['~standard'].validate(params === undefined ? { method } : { method, params });
  if (result instanceof Promise || !result.issues?.length) return undefined;
  return result.issues.slice(0, 3).map(describe).join('; ');
}

function describe(issue: Issue): string {
  const path = (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.');
  const message = issue.message.replace(/^Invalid input: /, '');
  return path ? `${path}: ${message}` : message;
}

/** Why a `_meta` is unusable (not an object, a progress token neither string nor integer), or undefined. */
export function invalidMeta(meta: unknown): string | undefined {
  if (meta === undefined) return undefined;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta))
    return 'params._meta: expected object';
  const token = (meta as { progressToken?: unknown }).progressToken;
  if (token === undefined || typeof token === 'string' || Number.isSafeInteger(token)) return undefined;
  return 'params._meta.progressToken: expected string or integer';
}

/**
 * Methods the 2026-07-28 revision removed from the protocol: on that wire the SDK answers them 404 /
 * -32601 whatever their params, so a frame of theirs that fails our params check is still the SDK's.
 */
const REMOVED_AT_MODERN = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/** Whether a method is one the 2026-07-28 revision removed (see {@link REMOVED_AT_MODERN}). */
export const removedAtModern = (method: unknown): boolean =>
  typeof method === 'string' && REMOVED_AT_MODERN.has(method);
