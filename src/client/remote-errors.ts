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

/** True when a failure (or any of its causes) is a connection-level network error, worth a retry. */
export function isNetworkError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (
      typeof code === 'string' &&
      /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|UND_ERR_)/.test(code)
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

const TLS_CODE = /^(ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_(GET|VERIFY)_)/;

/**
 * What went wrong with a remote server, in a few words a user can act on: "connection refused at
 * host:port", "DNS lookup failed for host", "HTTP 404 Not Found", "TLS error with host:port (CODE)".
 * Found in the error's `cause` chain (undici hides it under "fetch failed"); undefined when none fits.
 */
export function describeRemoteError(error: unknown, url: string): string | undefined {
  const where = new URL(url);
  const hostPort = `${where.hostname}:${where.port || (where.protocol === 'https:' ? '443' : '80')}`;
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof SdkHttpError && typeof e.status === 'number') {
      const text = typeof e.statusText === 'string' && e.statusText ? ` ${e.statusText}` : '';
      return `HTTP ${e.status}${text} from ${url}`;
    }
    const code = (e as { code?: unknown }).code;
    if (e.name === 'SseError' && typeof code === 'number') return `HTTP ${code} from ${url} (legacy SSE)`;
    if (typeof code !== 'string') continue;
    // With several addresses (localhost: ::1 and 127.0.0.1) undici reports the first one it tried.
    const at = socketAddress(e) ?? hostPort;
    if (code === 'ECONNREFUSED') return `connection refused at ${at}`;
    if (code === 'ENOTFOUND') return `DNS lookup failed for ${where.hostname} (no such host)`;
    if (code === 'EAI_AGAIN') return `DNS lookup failed for ${where.hostname} (temporary failure)`;
    if (code === 'ECONNRESET') return `connection reset by ${at}`;
    if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return `connection to ${at} timed out`;
    if (TLS_CODE.test(code)) return `TLS error with ${hostPort} (${code})`;
  }
  return undefined;
}

function socketAddress(error: Error): string | undefined {
  const first = error instanceof AggregateError ? (error.errors[0] as unknown) : error;
  const { address, port } = (first ?? {}) as { address?: unknown; port?: unknown };
  if (typeof address !== 'string' || typeof port !== 'number') return undefined;
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}
