import type { LogBuffer } from '../gateway/index.js';
import { denialLine, onSandboxDenial } from '../sandbox/index.js';
import type { CliIO } from './io.js';

/**
 * The gateway's log of its sandboxed servers: one line per distinct path or host a server was denied, on
 * stderr and in the dashboard's log. Returns the way to stop.
 */
export function logSandboxDenials(io: CliIO, logs: LogBuffer): () => void {
  return onSandboxDenial((server, denial) => {
    io.err(`mcpkit gateway: ${denialLine(server, denial)}\n`);
    logs.add(denialLine(server, denial));
  });
}
