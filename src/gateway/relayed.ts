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
  const { resultType, ...rest } = response.result;
  if (resultType !== undefined && resultType !== 'complete') return { kind: 'fallback' };
  return { kind: 'result', result: withoutServerInfo(rest) };
}

/** The result without the upstream's own `_meta` server info (the serving side adds the gateway's). */
export function withoutServerInfo(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta as Record<string, unknown> | undefined;
  if (!meta || !(SERVER_INFO in meta)) return result;
  const { [SERVER_INFO]: _, ...others } = meta;
  const { _meta: __, ...rest } = result;
  return Object.keys(others).length > 0 ? { ...rest, _meta: others } : rest;
}

/** A relayed result as the SDK server's handler returns it. */
export const asCallToolResult = (result: Record<string, unknown>) => result as unknown as CallToolResult;
