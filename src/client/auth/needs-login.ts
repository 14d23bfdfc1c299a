import { McpkitError } from '../../errors/index.js';

/** Why a server needs a login: never logged in, or the login stopped working (refresh refused). */
export type LoginReason = 'none' | 'expired';

/**
 * A remote server needs an OAuth login that cannot happen here (no terminal, no `onAuthorizationUrl`
 * handler): one line that says the command to run.
 */
export class NeedsLoginError extends McpkitError {
  /** The message without the leading `server "x"` (for a server's failure and the gateway's status). */
  readonly detail: string;

  constructor(
    readonly server: string,
    readonly reason: LoginReason,
  ) {
    const detail =
      reason === 'expired'
        ? `was logged out (the login expired or was revoked): log in again with mcpkit auth login ${server}`
        : `needs a login: run mcpkit auth login ${server}`;
    super('AUTH_REQUIRED', `server "${server}" ${detail}`, { server });
    this.detail = detail;
  }
}

/** The NeedsLoginError in an error's cause chain (the SDK wraps what a provider throws). */
export function findNeedsLogin(error: unknown): NeedsLoginError | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof NeedsLoginError) return e;
    if (e instanceof AggregateError)
      for (const inner of e.errors) if (inner instanceof NeedsLoginError) return inner;
  }
  return undefined;
}
