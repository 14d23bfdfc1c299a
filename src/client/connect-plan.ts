import { isStdioServer, type ServerEntry } from '../config/index.js';
import { type RetryNotice, retryOnNetworkError } from './network-retry.js';
import { shouldFallBackToSse } from './remote-errors.js';
import { SpawnError } from './stdio-transport.js';

/** The wire of one connect attempt. */
export type Wire = 'stdio' | 'streamable-http' | 'sse';

/**
 * One connect attempt: the wire, and how the handshake begins — `negotiate` lets the SDK choose the
 * protocol generation (`server/discover` first), `initialize` goes straight to the 2025-era `initialize`.
 */
export interface ConnectAttempt {
  readonly wire: Wire;
  readonly handshake: 'negotiate' | 'initialize';
}

/**
 * How a server is connected, from its entry: a stdio server once more with `initialize` if it died on
 * the negotiation probe; a remote one over Streamable HTTP, retried on network errors, then legacy SSE
 * on a 4xx; an `sse` entry over SSE only.
 */
export type ConnectPlan = 'stdio' | 'remote' | 'sse';

/** The plan for an entry (an injected transport follows the plan of the entry it stands in for). */
export function connectPlanFor(entry: ServerEntry): ConnectPlan {
  if (isStdioServer(entry)) return 'stdio';
  return entry.type === 'sse' ? 'sse' : 'remote';
}

/** What {@link connectWithFallbacks} needs from the connection. */
export interface ConnectSteps {
  /** One attempt; rejects when it fails. */
  attempt(attempt: ConnectAttempt): Promise<void>;
  /** True when the last attempt's transport ended on its own (a stdio server that exited). */
  ended(): boolean;
  /** Told of each network retry before its delay. */
  onRetry(notice: RetryNotice): void;
  signal: AbortSignal;
}

const NEGOTIATE = (wire: Wire): ConnectAttempt => ({ wire, handshake: 'negotiate' });

/** Runs the plan's attempts in order until one connects; resolves with it (a reconnect reuses it). */
export async function connectWithFallbacks(plan: ConnectPlan, steps: ConnectSteps): Promise<ConnectAttempt> {
  const { signal } = steps;
  const tryAttempt = async (attempt: ConnectAttempt) => {
    await steps.attempt(attempt);
    return attempt;
  };
  switch (plan) {
    case 'stdio':
      try {
        return await tryAttempt(NEGOTIATE('stdio'));
      } catch (error) {
        // Some 2025-era servers exit when a request comes before `initialize`. Only then is a second
        // process started, going straight to `initialize`.
        if (error instanceof SpawnError || signal.aborted || !steps.ended()) throw error;
        return tryAttempt({ wire: 'stdio', handshake: 'initialize' });
      }
    case 'sse':
      return tryAttempt(NEGOTIATE('sse'));
    case 'remote':
      return retryOnNetworkError(signal, steps.onRetry, async () => {
        try {
          return await tryAttempt(NEGOTIATE('streamable-http'));
        } catch (error) {
          if (!shouldFallBackToSse(error)) throw error;
          try {
            return await tryAttempt(NEGOTIATE('sse'));
          } catch (fallback) {
            // The Streamable HTTP answer says more (its status and text) and is the one reported; the SSE
            // one stays the cause, so a network error there is retried as before.
            throw new FallbackFailed(error, fallback);
          }
        }
      });
  }
}

/** Both the Streamable HTTP attempt and its legacy SSE fallback failed. */
export class FallbackFailed extends Error {
  override readonly name = 'FallbackFailed';
  constructor(
    readonly first: unknown,
    readonly fallback: unknown,
  ) {
    super(first instanceof Error ? first.message : String(first), { cause: fallback });
  }
}
