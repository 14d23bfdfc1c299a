import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY } from '@modelcontextprotocol/server';
import type { RawRelayPort, RelayResponse } from '../client/index.js';
import { withoutServerInfo } from './relayed.js';

/**
 * What a relayed call came to: a finished result, a 2026-07-28 `input_required` one (the upstream wants
 * input from the client first), a task the upstream made of it (the tasks extension's `CreateTaskResult`),
 * an upstream error, or "ask the SDK path".
 */
export type RelayOutcome =
  | { kind: 'result'; result: Record<string, unknown> }
  | { kind: 'input'; result: Record<string, unknown> }
  | { kind: 'task'; result: Record<string, unknown> }
  | { kind: 'error'; error: { code: number; message: string; data?: unknown } }
  | { kind: 'fallback' };

/** A retried 2026-07-28 call's answers to what the upstream asked, and the state it gave to echo. */
export interface InputRound {
  inputResponses?: Record<string, unknown>;
  requestState?: string;
  /** What the 2026-07-28 caller can answer (its declared capabilities), passed on to the upstream. */
  clientCapabilities?: Record<string, unknown>;
  /**
   * The least severe log level the caller wants: a 2026-07-28 upstream logs during a request only when it
   * names one (a 2025 client gets every log unless it set a level).
   */
  logLevel?: string;
}

/**
 * Sends a tools/call through the relay (with the round's input responses and state, when it is a retry),
 * cancelling it when `signal` aborts. An `input_required` result comes back as it is (`kind: 'input'`);
 * any other result that is not complete asks for the SDK path.
 */
export function relayToolCall(
  relay: RawRelayPort,
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
  round: InputRound = {},
): Promise<RelayOutcome | undefined> {
  return relayRequest(relay, 'tools/call', { name, arguments: args }, signal, round);
}

/** {@link relayToolCall} for any request that may want input first (`tools/call`, `prompts/get`). */
export async function relayRequest(
  relay: RawRelayPort,
  method: string,
  request: Record<string, unknown>,
  signal?: AbortSignal,
  round: InputRound = {},
): Promise<RelayOutcome | undefined> {
  let settle: (response: RelayResponse) => void = () => undefined;
  const answered = new Promise<RelayResponse>((resolve) => {
    settle = resolve;
  });
  const params: Record<string, unknown> = { ...request };
  if (round.inputResponses !== undefined) params.inputResponses = round.inputResponses;
  if (round.requestState !== undefined) params.requestState = round.requestState;
  const meta: Record<string, unknown> = {};
  if (round.clientCapabilities !== undefined) meta[CLIENT_CAPABILITIES_META_KEY] = round.clientCapabilities;
  if (round.logLevel !== undefined) meta[LOG_LEVEL_META_KEY] = round.logLevel;
  if (Object.keys(meta).length > 0) params._meta = meta;
  const id = relay.request(method, params, (response) => settle(response));
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
  if (resultType === 'input_required') return { kind: 'input', result: response.result };
  if (resultType === 'task') return { kind: 'task', result: response.result };
  if (resultType !== undefined && resultType !== 'complete') return { kind: 'fallback' };
  return { kind: 'result', result: withoutServerInfo(response.result, true) };
}
