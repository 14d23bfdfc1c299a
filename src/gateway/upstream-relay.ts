import type { RawRelayPort, RelayResponse } from '../client/index.js';
import { withoutServerInfo } from './relayed.js';

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
  relay: RawRelayPort,
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
