import { McpkitError } from '../errors/index.js';
import { describeRemoteError } from '../internal/remote-failure.js';
import type { HttpExchange } from './http-probe.js';

/**
 * Why a check cannot start at all, in one line: a command that does not run, a process that exits before
 * the handshake, an HTTP endpoint that refuses connections or is not MCP. Seven failed gates would each
 * say less.
 */
export function unreachable(why: string, cause?: unknown): McpkitError {
  return new McpkitError('SERVER_FAILED', why, cause === undefined ? {} : { cause });
}

/** A spawn failure in words: ENOENT is a command that is not installed or not on PATH. */
export function spawnProblem(command: string, error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return `cannot start "${command}": not found (is it installed and on PATH?)`;
  if (error.code === 'EACCES') return `cannot start "${command}": permission denied (not executable)`;
  return `cannot start "${command}": ${error.message}`;
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
  if (known) return `${known.cause} (${known.hint})`;
  const { host } = new URL(url);
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (e.name === 'TimeoutError') return `no answer from ${host} in time`;
  // fetch says only "fetch failed"; the innermost cause says what (e.g. "bad port").
  let inner: unknown = error;
  while (inner instanceof Error && inner.cause instanceof Error) inner = inner.cause;
  return `cannot reach ${host}: ${inner instanceof Error ? inner.message : String(inner)}`;
}
