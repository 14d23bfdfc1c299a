import type { McpServerFactory } from '@modelcontextprotocol/server';
// stdio is the common case: the HTTP stack is loaded only when asked for, to keep start-up fast.
import type { FrameIntercept } from '../serve/guarded-stdio.js';
import { serveOverStdio } from '../serve/stdio.js';
import type { CliIO } from './io.js';

/** Where to serve: stdio, or HTTP on host:port. */
export interface ServeFlags {
  transport?: 'stdio' | 'http' | 'sse';
  host: string;
  port?: number;
}

/**
 * Serves until the client leaves (stdin EOF), SIGINT or SIGTERM; then `shutdown` runs (jobs and
 * upstream processes must die with us).
 */
export async function serveUntilDone(
  io: CliIO,
  factory: McpServerFactory,
  flags: ServeFlags,
  label: string,
  shutdown: () => Promise<void>,
  intercept?: FrameIntercept,
): Promise<void> {
  let stop: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    stop = resolve;
  });
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    if (flags.transport === 'http') {
      const { serveOverHttp } = await import('../serve/http.js');
      const http = await serveOverHttp(factory, {
        host: flags.host,
        ...(intercept ? { intercept } : {}),
        ...(flags.port ? { port: flags.port } : {}),
      });
      io.err(`${label} on ${http.url}\n`);
      await done;
      await http.close();
    } else {
      const handle = serveOverStdio(factory, { onClose: stop, ...(intercept ? { intercept } : {}) });
      await done;
      await handle.close();
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await shutdown();
  }
}
