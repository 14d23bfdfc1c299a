import { isMcpkitError, McpkitError } from '../errors/index.js';
import type { HttpPortReservation } from '../serve/http.js';

/**
 * For `-t http`: binds `--host`/`--port` before the server is built (upstreams started, a repository
 * indexed), so a busy port is reported at once. Serve with `port` set to the reservation's port and the
 * socket is taken over; `release()` in a finally frees it when serving never started.
 */
export async function bindFirst(flags: {
  transport?: string;
  host: string;
  port?: number;
}): Promise<HttpPortReservation | undefined> {
  if (flags.transport !== 'http') return undefined;
  // The HTTP stack is loaded only for HTTP: stdio servers start faster without it.
  const { reserveHttpPort } = await import('../serve/http.js');
  try {
    return await reserveHttpPort({ host: flags.host, ...(flags.port ? { port: flags.port } : {}) });
  } catch (error) {
    const code = isMcpkitError(error, 'LISTEN_FAILED')
      ? (error.cause as { code?: unknown })?.code
      : undefined;
    if (code !== 'EADDRINUSE') throw error;
    throw new McpkitError(
      'LISTEN_FAILED',
      `${error instanceof Error ? error.message : String(error)}; give another --port, or --port 0 for any free port`,
      { cause: error },
    );
  }
}
