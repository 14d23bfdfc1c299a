/**
 * The one error type for local failures. Every instance carries a documented string `code` so callers
 * branch on codes, never on message text; the CLI maps USAGE and INVALID_ARGUMENT to exit 2, CANCELLED to 130,
 * the rest to 1. Library code never throws USAGE: that code belongs to the CLI's own argument parsing.
 */
export type McpkitErrorCode =
  /** A command-line argument or flag is wrong; the CLI exits 2. */
  | 'USAGE'
  /** A library call got an argument it cannot use (a bad path, name or option); the CLI exits 2. */
  | 'INVALID_ARGUMENT'
  /** A config file is not valid JSON / TOML; the message carries file:line:col. */
  | 'CONFIG_PARSE'
  /** A server entry does not match the schema; the message names the file and JSON path. */
  | 'CONFIG_INVALID'
  /** `${VAR}` without a default and VAR unset, when a server is used. */
  | 'CONFIG_MISSING_VAR'
  /** No server of that name in the scopes looked at. */
  | 'SERVER_NOT_FOUND'
  /** `add` of a name that exists without `--force`. */
  | 'SERVER_EXISTS'
  /** Reading or writing a file failed (permissions, disk). */
  | 'IO'
  /** An optional package a feature needs (sql.js, pg, mysql2, redis) is not installed; the message names it. */
  | 'DEPENDENCY_MISSING'
  /** A server could not be started (the message says spawn, timeout, handshake or config). */
  | 'SERVER_FAILED'
  /** A request went to a server that is not ready (failed, stopped, or died during the call). */
  | 'SERVER_UNAVAILABLE'
  /** A call to a tool the server entry's includeTools/excludeTools hide. */
  | 'TOOL_NOT_ALLOWED'
  /** A tool call came back with `isError: true` (the CLI exits 1). */
  | 'TOOL_ERROR'
  /** The user cancelled (Ctrl-C, SIGTERM); the CLI exits 130. */
  | 'CANCELLED'
  /** `mcpkit check` found at least one failing gate (exit 1). */
  | 'CHECK_FAILED'
  /** A bridge contract is invalid; the message lists every problem with file:line:col. */
  | 'CONTRACT_INVALID'
  /** An HTTP server could not bind its host:port (in use, no permission, not this machine's address). */
  | 'LISTEN_FAILED'
  /** A server refused or timed out a request, or does not offer that kind of request (exit 1). */
  | 'REQUEST_FAILED'
  /** A remote server wants an OAuth login first, or the login expired or was revoked (exit 1). */
  | 'AUTH_REQUIRED'
  /** An OAuth login did not complete: the authorization server refused, the callback was wrong (exit 1). */
  | 'AUTH_FAILED';

/** Where a failure happened, for messages and for programs that handle the error. */
export interface McpkitErrorContext {
  file?: string;
  server?: string;
}

/** A local failure with a stable `code`, optional `cause` and context (file, server). */
export class McpkitError extends Error {
  override readonly name = 'McpkitError';
  readonly code: McpkitErrorCode;
  readonly context: McpkitErrorContext;

  constructor(
    code: McpkitErrorCode,
    message: string,
    options: { cause?: unknown } & McpkitErrorContext = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    const { cause: _cause, ...context } = options;
    this.context = context;
  }
}

/** True when `value` is an McpkitError, optionally with the given code. */
export function isMcpkitError(value: unknown, code?: McpkitErrorCode): value is McpkitError {
  return value instanceof McpkitError && (code === undefined || value.code === code);
}
