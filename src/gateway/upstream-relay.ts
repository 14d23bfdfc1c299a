import type { RelayResponse, ServerConnection } from '../client/index.js';
import { withoutServerInfo } from './relayed.js';

/**
 * The raw relay of one upstream: requests sent as they are, results handed back unparsed. The one place
 * the gateway touches the client's relay, so a change of its shape is a change here only.
 */
export interface RelayPort {
  /**
   * Sends a request; `onResponse` gets the upstream's result or error exactly once. Returns its id, or
   * undefined when the upstream cannot relay after all (then nothing was sent).
   */
  request(
    method: string,
    params: Record<string, unknown>,
    onResponse: (response: RelayResponse) => void,
  ): string | undefined;
  /** Tells the upstream to stop a relayed request; it then settles with a -32800 error. */
  cancel(id: string, reason?: string): void;
}

/** The relay of a ready upstream, or undefined when it is not ready (then use the SDK client). */
export function relayOf(connection: ServerConnection): RelayPort | undefined {
  if (connection.status !== 'ready') return undefined;
  return {
    request: (method, params, onResponse) => connection.relayRequest(method, params, onResponse),
    cancel: (id, reason) => connection.relayCancel(id, reason),
  };
}

/** What a relayed call came to: a finished result, an upstream error, or "ask the SDK path". */
export type RelayOutcome =
  | { kind: 'result'; result: Record<string, unknown> }
  | { kind: 'error'; error: { code: number; message: string; data?: unknown } }
  | { kind: 'fallback' };

/**
 * Sends a tools/call through the relay, cancelling it when `signal` aborts. A result that is not complete
 * (a 2026-07-28 `input_required`) asks for the SDK path, which can answer it.
 */
export async function relayToolCall(
  relay: RelayPort,
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<RelayOutcome | undefined> {
  let settle: (response: RelayResponse) => void = () => undefined;
  const answered = new Promise<RelayResponse>((resolve) => {
    settle = resolve;
  });
  const id = relay.request('tools/call', { name, arguments: args }, (response) => settle(response));
  if (id === undefined) return undefined;
  const onAbort = () => relay.cancel(id, signal?.reason === undefined ? undefined : String(signal.reason));
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
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
