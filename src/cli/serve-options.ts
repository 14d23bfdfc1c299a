import { isIP } from 'node:net';
import type { Command } from 'commander';
import { collect, hostAddress, parseTransport, portNumber, positiveInteger, usage } from './options.js';
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
    )
    .option(
      '--auth <mode>',
      'HTTP: "token" (require a bearer token) or "none"; beyond loopback "token" is required',
      parseAuth,
    )
    .option(
      '--tokens <file>',
      'HTTP: the accepted bearer tokens, one "name:token" per line (implies --auth token; or set MCPKIT_AUTH_TOKEN)',
    )
    .option(
      '--allow-host <name>',
      'HTTP: a Host name clients may use besides localhost (repeatable)',
      collect,
      [],
    )
    .option(
      '--session-key <file>',
      'HTTP: replicas behind a load balancer seal 2025 session ids with this shared key (or MCPKIT_SESSION_KEY)',
    )
    .option(
      '--state <url>',
      'HTTP: redis://host:port shared by replicas: SSE resumption, ended sessions, pins (or MCPKIT_STATE)',
    )
    .option(
      '--drain <seconds>',
      'HTTP: on SIGTERM, stop accepting and let calls in progress finish this long (default 10)',
      positiveInteger('--drain'),
    );
}

function parseAuth(value: string): 'token' | 'none' {
  if (value === 'token' || value === 'none') return value;
  return usage(`--auth must be "token" or "none", got "${value}"`);
}

/** True for an address only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/gu, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/** The Host names an HTTP server accepts besides loopback: `--allow-host`, and the bound address itself. */
export function allowedHosts(flags: ServeFlags): string[] {
  const hosts = [...(flags.allowHost ?? [])].map((name) => name.toLowerCase());
  const bound = flags.host.toLowerCase();
  // A wildcard bind says nothing about the names clients will use: those come from --allow-host.
  if (!isLoopbackHost(bound) && bound !== '0.0.0.0' && bound !== '::')
    hosts.push(isIP(bound) === 6 ? `[${bound}]` : bound);
  return hosts;
}

/**
 * Refuses what the serving flags cannot mean: `sse` (mcpkit serves stdio or HTTP), and HTTP-only flags
 * without `-t http` (they would be ignored in silence).
 */
export function checkServeFlags(name: string, flags: ServeFlags): void {
  if (flags.transport === 'sse')
    usage(`${name} serves stdio or http (-t http); legacy SSE is for clients only`);
  if (flags.transport === 'http') {
    if (flags.tokens !== undefined && flags.auth === 'none')
      usage('--tokens and --auth none contradict each other');
    const auth = flags.auth ?? (flags.tokens !== undefined ? 'token' : 'none');
    if (auth === 'token' && flags.tokens === undefined && !process.env.MCPKIT_AUTH_TOKEN)
      usage('--auth token needs the tokens: --tokens FILE (one "name:token" per line) or MCPKIT_AUTH_TOKEN');
    if (auth !== 'token' && !isLoopbackHost(flags.host))
      usage(
        `--host ${flags.host} serves beyond this machine, which needs auth: add --tokens FILE (one "name:token" per line) or set MCPKIT_AUTH_TOKEN, or bind 127.0.0.1`,
      );
    return;
  }
  const httpOnly = [
    flags.port !== undefined ? '--port' : '',
    flags.host !== '127.0.0.1' ? '--host' : '',
    flags.sessionIdle !== undefined ? '--session-idle' : '',
    flags.maxSessions !== undefined ? '--max-sessions' : '',
    flags.auth !== undefined ? '--auth' : '',
    flags.tokens !== undefined ? '--tokens' : '',
    (flags.allowHost ?? []).length > 0 ? '--allow-host' : '',
    flags.sessionKey !== undefined ? '--session-key' : '',
    flags.state !== undefined ? '--state' : '',
    flags.drain !== undefined ? '--drain' : '',
  ].filter(Boolean);
  if (httpOnly.length > 0)
    usage(`${httpOnly.join(', ')}: only with -t http (${name} serves stdio otherwise)`);
}
