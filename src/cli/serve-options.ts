import type { Command } from 'commander';
import { hostAddress, parseTransport, portNumber, positiveInteger, usage } from './options.js';
import type { ServeFlags } from './serve-until-done.js';

/**
 * The flags of every command that serves (bridge, gateway, search-server), defined once: the transport,
 * where HTTP listens, and how long 2025 sessions live.
 */
export function addServeOptions(command: Command): Command {
  return command
    .option('-t, --transport <transport>', 'stdio (default) or http', parseTransport)
    .option('--host <host>', 'HTTP bind address', hostAddress, '127.0.0.1')
    .option('--port <n>', 'HTTP port (default 0: any free port)', portNumber)
    .option(
      '--session-idle <seconds>',
      'HTTP: close a 2025-protocol session idle this long (default 1800)',
      positiveInteger('--session-idle'),
    )
    .option(
      '--max-sessions <n>',
      'HTTP: keep at most this many 2025-protocol sessions; the least recently used makes room (default 1000)',
      positiveInteger('--max-sessions'),
    );
}

/**
 * Refuses what the serving flags cannot mean: `sse` (mcpkit serves stdio or HTTP), and HTTP-only flags
 * without `-t http` (they would be ignored in silence).
 */
export function checkServeFlags(name: string, flags: ServeFlags): void {
  if (flags.transport === 'sse')
    usage(`${name} serves stdio or http (-t http); legacy SSE is for clients only`);
  if (flags.transport === 'http') return;
  const httpOnly = [
    flags.port !== undefined ? '--port' : '',
    flags.host !== '127.0.0.1' ? '--host' : '',
    flags.sessionIdle !== undefined ? '--session-idle' : '',
    flags.maxSessions !== undefined ? '--max-sessions' : '',
  ].filter(Boolean);
  if (httpOnly.length > 0)
    usage(`${httpOnly.join(', ')}: only with -t http (${name} serves stdio otherwise)`);
}
