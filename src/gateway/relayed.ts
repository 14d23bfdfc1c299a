import type { CallToolResult } from '@modelcontextprotocol/server';
import type { RelayResponse, ServerConnection } from '../client/index.js';
import { SERVER_INFO_META_KEY as SERVER_INFO } from '../serve/index.js';

/** What a relayed call came to: a finished result, an upstream error, or "ask the SDK path". */
export type RelayOutcome =
  | { kind: 'result'; result: Record<string, unknown> }
  | { kind: 'error'; error: { code: number; message: string; data?: unknown } }
  | { kind: 'fallback' };

/**
 * Sends a tools/call through the connection's raw relay, cancelling it when `signal` aborts. A result
 * that is not complete (a 2026-07-28 `input_required`) asks for the SDK path, which can answer it.
 */
export async function relayToolCall(
  connection: ServerConnection,
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<RelayOutcome | undefined> {
  let settle: (response: RelayResponse) => void = () => undefined;
  const answered = new Promise<RelayResponse>((resolve) => {
    settle = resolve;
  });
  const id = connection.relayRequest('tools/call', { name, arguments: args }, (response) => settle(response));
  if (id === undefined) return undefined;
  const onAbort = () =>
    connection.relayCancel(id, signal?.reason === undefined ? undefined : String(signal.reason));
  signal?.addEventListener('abort', onAbort, { once: true });
  let response: RelayResponse;
  try {
    response = await answered;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if ('error' in response) return { kind: 'error', error: response.error };
  const { resultType } = response.result;
  if (resultType !== undefined && resultType !== 'complete') return { kind: 'fallback' };
  return { kind: 'result', result: withoutServerInfo(response.result, true) };
}

/**
 * The result without `resultType` and the upstream's own `_meta` server info (the serving side adds its
 * own). `inPlace` edits the object itself (a freshly parsed frame nobody else holds).
 */
export function withoutServerInfo(result: Record<string, unknown>, inPlace = false): Record<string, unknown> {
  const out = inPlace ? result : { ...result };
  delete out.resultType;
  const meta = out._meta as Record<string, unknown> | undefined;
  if (!meta || !(SERVER_INFO in meta)) return out;
  const others = inPlace ? meta : { ...meta };
  delete others[SERVER_INFO];
  if (Object.keys(others).length > 0) out._meta = others;
  else delete out._meta;
  return out;
}

/** A relayed result as the SDK server's handler returns it. */
export const asCallToolResult = (result: Record<string, unknown>) => result as unknown as CallToolResult;

/** The answer to a call whose server cannot take it now: a tool error the model can read, not a protocol error. */
export function unavailable(name: string, why: string): CallToolResult {
  return { content: [{ type: 'text', text: `Tool ${name} is unavailable: ${why}` }], isError: true };
}
