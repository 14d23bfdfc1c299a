import { isIP } from 'node:net';
import type { Command } from 'commander';
import { collect, hostAddress, parseTransport, portNumber, positiveInteger, usage } from './options.js';
import type { ReplicaFlags } from './scale-out.js';

/** Where to serve: stdio, or HTTP on host:port. */
export interface ServeFlags extends ReplicaFlags {
  transport?: 'stdio' | 'http' | 'sse';
  host: string;
  port?: number;
  /** Seconds a 2025 HTTP session may stay idle. */
  sessionIdle?: number;
  /** How many 2025 HTTP sessions are kept at most. */
  maxSessions?: number;
  /**
   * `token`: every HTTP request needs a bearer token (`--tokens` or MCPKIT_AUTH_TOKEN); `oauth`: a JWT access
   * token of `oauthIssuer`.
   */
  auth?: 'token' | 'oauth' | 'none';
  /** The OAuth authorization server whose JWT access tokens are accepted. */
  oauthIssuer?: string;
  /** The public URL of the endpoint (tokens' audience); default the served URL. */
  oauthResource?: string;
  /** The audience tokens must carry instead of the resource URL. */
  oauthAudience?: string;
  /** Scopes every token must have. */
  oauthScope?: string[];
  /** A file of `name:token` lines. */
  tokens?: string;
  /** Host names accepted besides loopback. */
  allowHost?: string[];
  /** Seconds a SIGTERM lets HTTP calls in progress finish. */
  drain?: number;
}

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
      'HTTP: "token" (require a bearer token), "oauth" (JWTs of an authorization server) or "none"; beyond loopback one of the first two is required',
      parseAuth,
    )
    .option(
      '--oauth-issuer <url>',
      'HTTP: accept JWT access tokens of this OAuth authorization server (implies --auth oauth)',
    )
    .option(
      '--oauth-resource <url>',
      'HTTP, OAuth: the public URL of the endpoint, which tokens must be issued for (default: the served URL)',
    )
    .option(
      '--oauth-audience <aud>',
      'HTTP, OAuth: the audience tokens must carry instead of the resource URL',
    )
    .option('--oauth-scope <scope>', 'HTTP, OAuth: a scope every token must have (repeatable)', collect, [])
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

function parseAuth(value: string): 'token' | 'oauth' | 'none' {
  if (value === 'token' || value === 'oauth' || value === 'none') return value;
  return usage(`--auth must be "token", "oauth" or "none", got "${value}"`);
}

/** The auth mode the flags ask for: `--auth`, else what `--tokens` / `--oauth-issuer` imply. */
export function authMode(flags: ServeFlags): 'token' | 'oauth' | 'none' {
  return (
    flags.auth ?? (flags.tokens !== undefined ? 'token' : flags.oauthIssuer !== undefined ? 'oauth' : 'none')
  );
}

/** The OAuth flags given besides the issuer (they mean nothing without `--auth oauth`). */
function oauthDetails(flags: ServeFlags): string[] {
  return [
    flags.oauthResource !== undefined ? '--oauth-resource' : '',
    flags.oauthAudience !== undefined ? '--oauth-audience' : '',
    (flags.oauthScope ?? []).length > 0 ? '--oauth-scope' : '',
  ].filter(Boolean);
}

function checkUrl(flag: string, value: string | undefined): void {
  if (value === undefined) return;
  if (!URL.canParse(value) || !/^https?:$/u.test(new URL(value).protocol))
    usage(`${flag} must be an http:// or https:// URL, got "${value}"`);
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
    if (flags.tokens !== undefined && (flags.auth === 'oauth' || flags.oauthIssuer !== undefined))
      usage('--tokens and OAuth contradict each other: choose one');
    const auth = authMode(flags);
    if (auth === 'oauth') {
      if (flags.oauthIssuer === undefined)
        usage('--auth oauth needs the authorization server: --oauth-issuer URL (its issuer identifier)');
      checkUrl('--oauth-issuer', flags.oauthIssuer);
      checkUrl('--oauth-resource', flags.oauthResource);
      return;
    }
    const stray = [...(flags.oauthIssuer !== undefined ? ['--oauth-issuer'] : []), ...oauthDetails(flags)];
    if (stray.length > 0) usage(`${stray.join(', ')}: only with --auth oauth`);
    if (auth === 'token' && flags.tokens === undefined && !process.env.MCPKIT_AUTH_TOKEN)
      usage('--auth token needs the tokens: --tokens FILE (one "name:token" per line) or MCPKIT_AUTH_TOKEN');
    if (auth !== 'token' && !isLoopbackHost(flags.host))
      usage(
        `--host ${flags.host} serves beyond this machine, which needs auth: add --tokens FILE (one "name:token" per line), set MCPKIT_AUTH_TOKEN or give --oauth-issuer URL, or bind 127.0.0.1`,
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
    flags.oauthIssuer !== undefined ? '--oauth-issuer' : '',
    ...oauthDetails(flags),
    (flags.allowHost ?? []).length > 0 ? '--allow-host' : '',
    flags.sessionKey !== undefined ? '--session-key' : '',
    flags.state !== undefined ? '--state' : '',
    flags.drain !== undefined ? '--drain' : '',
  ].filter(Boolean);
  if (httpOnly.length > 0)
    usage(`${httpOnly.join(', ')}: only with -t http (${name} serves stdio otherwise)`);
}
