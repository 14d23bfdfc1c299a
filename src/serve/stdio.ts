import type { McpServerFactory } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { type FrameIntercept, GuardedStdioTransport } from './guarded-stdio.js';

/** Options for {@link serveOverStdio}. */
export interface ServeStdioOptions {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** Out-of-band errors; they go to stderr, never stdout. */
  onError?: (error: Error) => void;
  /** Called once when the client goes away (stdin EOF) or the transport closes. */
  onClose?: () => void;
  /** Frames to handle before the SDK (a proxy's hot path); see {@link FrameIntercept}. */
  intercept?: FrameIntercept;
}

/**
 * Serves an MCP server on stdio for both generations: 2026-07-28 (stateless, `server/discover`) and the
 * 2025 `initialize` handshake, with malformed frames answered instead of dropped.
 */
export function serveOverStdio(factory: McpServerFactory, options: ServeStdioOptions = {}) {
  const transport = new GuardedStdioTransport(
    (options.input ?? process.stdin) as import('node:stream').Readable,
    (options.output ?? process.stdout) as import('node:stream').Writable,
    options.onClose,
    options.intercept,
  );
  return serveStdio(factory, {
    transport,
    legacy: 'serve',
    onerror: options.onError ?? ((error) => process.stderr.write(`mcpkit serve: ${error.message}\n`)),
  });
}
