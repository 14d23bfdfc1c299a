import type { RuntimeListeners } from '../client/index.js';
import type { CliIO } from './io.js';

/**
 * What a server command shows while its servers start, attached before the first one does: each retry of
 * a remote connect as it happens (otherwise an unreachable URL is seconds of silence), and with
 * `MCPKIT_SHOW_STDERR=1` every line a server writes to stderr, from its first.
 */
export function runtimeListeners(io: CliIO): RuntimeListeners {
  return {
    server_retrying: ({ server, attempt, attempts, delayMs, cause }) =>
      io.err(
        `mcpkit: server "${server}": ${cause}; retrying in ${delayMs / 1000} s (attempt ${attempt + 1} of ${attempts})\n`,
      ),
    ...(io.env.MCPKIT_SHOW_STDERR ? { stderr: ({ server, line }) => io.err(`[${server}] ${line}\n`) } : {}),
  };
}
