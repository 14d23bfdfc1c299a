import { SdkHttpError } from '@modelcontextprotocol/client';

const TLS_CODE = /^(ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_(GET|VERIFY)_)/;

/** What went wrong with a remote server: the cause in a few words, and what to do about it. */
export interface RemoteFailure {
  cause: string;
  hint: string;
}

/**
 * What went wrong with a remote server, in words a user can act on: "connection refused at host:port",
 * "DNS lookup failed for host", "HTTP 404 Not Found from url", "TLS error with host:port (CODE)". Found in
 * the error's `cause` chain (undici hides it under "fetch failed"); undefined when none fits.
 */
export function describeRemoteError(error: unknown, url: string): RemoteFailure | undefined {
  const where = new URL(url);
  const hostPort = `${where.hostname}:${where.port || (where.protocol === 'https:' ? '443' : '80')}`;
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    const status = e instanceof SdkHttpError ? e.status : e.name === 'SseError' ? code : undefined;
    if (typeof status === 'number') {
      const statusText = e instanceof SdkHttpError ? e.statusText : undefined;
      const text = typeof statusText === 'string' && statusText ? ` ${statusText}` : '';
      const sse = e instanceof SdkHttpError ? '' : ' (legacy SSE)';
      return { cause: `HTTP ${status}${text} from ${url}${sse}`, hint: httpHint(status) };
    }
    if (typeof code !== 'string') continue;
    // With several addresses (localhost: ::1 and 127.0.0.1) undici reports the first one it tried.
    const at = socketAddress(e) ?? hostPort;
    if (code === 'ECONNREFUSED')
      return { cause: `connection refused at ${at}`, hint: 'is the server running?' };
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      const how = code === 'ENOTFOUND' ? 'no such host' : 'temporary failure';
      return { cause: `DNS lookup failed for ${where.hostname} (${how})`, hint: 'check the host name' };
    }
    if (code === 'ECONNRESET') return { cause: `connection reset by ${at}`, hint: 'check the URL' };
    if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT')
      return { cause: `connection to ${at} timed out`, hint: 'check the host, port and any firewall' };
    if (TLS_CODE.test(code))
      return {
        cause: `TLS error with ${hostPort} (${code})`,
        hint: 'check http:// versus https:// and the server certificate',
      };
  }
  return undefined;
}

function httpHint(status: number): string {
  if (status === 401 || status === 403) return 'check the credentials (headers)';
  if (status === 404 || status === 405) return 'is this the MCP endpoint? check the URL path';
  return 'check the server';
}

function socketAddress(error: Error): string | undefined {
  const first = error instanceof AggregateError ? (error.errors[0] as unknown) : error;
  const { address, port } = (first ?? {}) as { address?: unknown; port?: unknown };
  if (typeof address !== 'string' || typeof port !== 'number') return undefined;
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

/**
 * The deepest cause of a failed request to `url` when {@link describeRemoteError} knows none: fetch says
 * only "fetch failed", its innermost cause says what ("bad port", "invalid URL").
 */
export function innermostCause(error: unknown, url: string): string {
  const { host } = new URL(url);
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (e.name === 'TimeoutError') return `no answer from ${host} in time`;
  let inner: unknown = error;
  while (inner instanceof Error && inner.cause instanceof Error) inner = inner.cause;
  return `cannot reach ${host}: ${inner instanceof Error ? inner.message : String(inner)}`;
}
