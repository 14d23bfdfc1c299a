import { isNetworkError } from './remote-errors.js';

/** A failed remote connect that will be tried again. */
export interface RetryNotice {
  /** The attempt that failed, from 1. */
  attempt: number;
  /** How many attempts there are in all. */
  attempts: number;
  delayMs: number;
  error: unknown;
}

/** Claude Code's policy for a remote connect: 5 attempts, 1 s apart, doubling. */
export const CONNECT_ATTEMPTS = 5;
const FIRST_DELAY_MS = 1000;

/**
 * Runs `connect`, again after a network error (refused, reset, DNS), until it succeeds, the attempts
 * are used up or `signal` aborts; the error of the last attempt is thrown.
 */
export async function retryOnNetworkError<T>(
  signal: AbortSignal,
  onRetry: (notice: RetryNotice) => void,
  connect: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1, delayMs = FIRST_DELAY_MS; ; attempt++, delayMs *= 2) {
    try {
      return await connect();
    } catch (error) {
      if (!isNetworkError(error) || attempt >= CONNECT_ATTEMPTS || signal.aborted) throw error;
      onRetry({ attempt, attempts: CONNECT_ATTEMPTS, delayMs, error });
      await delay(delayMs, signal);
      if (signal.aborted) throw error;
    }
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
