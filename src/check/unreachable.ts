import { McpkitError } from '../errors/index.js';
import { describeRemoteError, innermostCause } from '../internal/remote-failure.js';
import type { HttpExchange } from './http-probe.js';

/**
 * Why a check cannot start at all, in one line: a command that does not run, a process that exits before
 * the handshake, an HTTP endpoint that refuses connections or is not MCP. Seven failed gates would each
 * say less.
 */
export function unreachable(why: string, cause?: unknown): McpkitError {
  return new McpkitError('SERVER_FAILED', why, cause === undefined ? {} : { cause });
}

/**
 * An HTTP answer to `initialize` that shows the URL is no MCP endpoint: an error status or a body that
 * is not JSON-RPC (an HTML page, a plain 404). Undefined when it looks like MCP.
 */
export function notMcp(exchange: HttpExchange): string | undefined {
  if (exchange.messages.length > 0) return undefined;
  const type = (exchange.headers.get('content-type') ?? 'no content type').split(';')[0]?.trim();
  if (exchange.status === 401 || exchange.status === 403)
    return `the server refused: HTTP ${exchange.status} (it needs authorization)`;
  return `not an MCP endpoint: HTTP ${exchange.status} ${type}`;
}

/** A fetch failure in words: connection refused at host:port, a name that does not resolve, a timeout. */
export function networkProblem(url: string, error: unknown): string {
  const known = describeRemoteError(error, url);
  return known ? `${known.cause} (${known.hint})` : innermostCause(error, url);
}
