import { SdkHttpError } from '@modelcontextprotocol/client';

/**
 * How remote (HTTP) failures are told apart: which mean "try the legacy SSE transport", which are worth a
 * retry, and which mean the server forgot our session.
 */

/**
 * True when a Streamable HTTP connect failed the way the spec's backwards-compatibility section says means
 * "this is an old HTTP+SSE server": a 4xx (404/405 in practice) to the first POST.
 */
export function shouldFallBackToSse(error: unknown): boolean {
  if (!(error instanceof SdkHttpError)) return false;
  const status = error.status;
  // Authentication answers mean "right transport, wrong credentials": no fallback.
  return status >= 400 && status < 500 && status !== 401 && status !== 403 && status !== 407;
}

/**
 * True when a failure (or any of its causes) is a connection-level network error, worth a retry. A name
 * that does not exist (ENOTFOUND) is not: it will not appear in the seconds a retry waits (EAI_AGAIN, a
 * resolver that could not answer now, is).
 */
export function isNetworkError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (
      typeof code === 'string' &&
      /^(ECONNREFUSED|ECONNRESET|EAI_AGAIN|ETIMEDOUT|EPIPE|UND_ERR_)/.test(code)
    ) {
      return true;
    }
  }
  return false;
}

/**
 * True when the server no longer knows our 2025-era session: 404, as the spec says, or the 400 "no valid
 * session" that servers built on older SDK examples send.
 */
export function isSessionLost(error: unknown): boolean {
  if (!(error instanceof SdkHttpError)) return false;
  if (error.status === 404) return true;
  const text = String((error.data as { text?: unknown }).text ?? error.message);
  return error.status === 400 && /session/i.test(text);
}
