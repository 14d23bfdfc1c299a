import { PassThrough } from 'node:stream';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { killAllGroups, reapGroupsOnAbruptExit } from '../internal/process-group.js';
import { onStop, SHUTDOWN_BUDGET_MS, stop as stopProcess } from '../internal/signals.js';
import type { BearerTokens } from '../serve/bearer-tokens.js';
// stdio is the common case: the HTTP stack is loaded only when asked for, to keep start-up fast.
import type { FrameIntercept } from '../serve/guarded-stdio.js';
import type { ServeHttpOptions } from '../serve/http.js';
import type { ProtectedResource } from '../serve/protected-resource.js';
import { serveOverStdio } from '../serve/stdio.js';
import type { CliIO } from './io.js';
import { replicaState } from './scale-out.js';
import { allowedHosts, authMode, type ServeFlags } from './serve-options.js';

// The flags' home is serve-options.ts; the commands that serve take them from here too.
export type { ServeFlags } from './serve-options.js';

const DEFAULT_DRAIN_S = 10;

/**
 * A stdio server's stdin, read from the moment a command begins (a gateway starting its upstreams): the
 * client closing it before serving begins is a stop (`signals.ts`) at once, not after the start-up. What
 * the client sent meanwhile waits in `input` for the server.
 */
export interface ClientStdin {
  input: PassThrough;
  /** Serving has begun: from now on the server itself notices the end (its `onClose`). */
  serving(): void;
  /** Stops reading stdin (serving is over): an open stdin must not keep the process alive. */
  release(): void;
}

/** Starts reading the process's stdin for a stdio server that takes time to start. */
export function watchClientStdin(): ClientStdin {
  const input = new PassThrough();
  let serving = false;
  const ended = () => {
    if (!serving) stopProcess('eof');
  };
  process.stdin.once('end', ended);
  process.stdin.pipe(input);
  return {
    input,
    serving: () => {
      serving = true;
    },
    release: () => {
      process.stdin.off('end', ended);
      process.stdin.unpipe(input);
      process.stdin.pause();
    },
  };
}

/**
 * Serves until the client leaves (stdin EOF), SIGINT, SIGTERM or SIGHUP; then `shutdown` runs (jobs and
 * upstream processes must die with us), within `SHUTDOWN_BUDGET_MS` (the shutdown ladders themselves end
 * sooner, see `stopGroup`: clients SIGTERM a stdio server 2 s after closing its stdin). A signal that
 * arrives during the shutdown is a hard stop (`signals.ts`): every child group SIGKILLed at once.
 */
export async function serveUntilDone(
  io: CliIO,
  factory: McpServerFactory,
  flags: ServeFlags,
  label: string,
  shutdown: () => Promise<void>,
  intercept?: FrameIntercept,
  httpOptions: Pick<ServeHttpOptions, 'bus' | 'toolSchema' | 'mounts' | 'pages' | 'shared' | 'ready'> & {
    /** Told the MCP endpoint's URL once HTTP serves. */
    onListening?: (url: string) => Promise<void>;
    /** stdio: the stdin watched since the command began ({@link watchClientStdin}). */
    client?: ClientStdin;
  } = {},
): Promise<void> {
  let stop: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    stop = resolve;
  });
  // An HTTP stop lets the calls in progress end first (--drain): the hard stop waits for that too.
  const drainMs = flags.transport === 'http' ? (flags.drain ?? DEFAULT_DRAIN_S) * 1000 : 0;
  const unregister = onStop(() => stop(), drainMs);
  // The client left: the same stop without a signal (exit 0); a signal during the shutdown is then hard.
  const clientLeft = () => {
    unregister();
    stop();
  };
  // Children must not outlive even a SIGKILL of this server (or its crash).
  reapGroupsOnAbruptExit();
  // Closing the front (the client's side) counts against the budget too: nothing may hold up the kill.
  let closeFront: () => Promise<void> = async () => undefined;
  let drain: () => Promise<void> = async () => undefined;
  try {
    if (flags.transport === 'http') {
      const { serveOverHttp } = await import('../serve/http.js');
      const tokens = await bearerTokens(io, flags, label);
      const oauth = await protectedResource(flags, (error) => io.err(`${label}: ${error.message}\n`));
      const replica = httpOptions.shared ? {} : await replicaState(flags, io, label);
      const hosts = allowedHosts(flags);
      const { onListening, client: _stdin, ...endpoint } = httpOptions;
      const http = await serveOverHttp(factory, {
        host: flags.host,
        ...(tokens ? { tokens } : {}),
        ...(oauth ? { protectedResource: oauth } : {}),
        ...(hosts.length > 0 ? { allowedHosts: hosts } : {}),
        ...(intercept ? { intercept } : {}),
        ...(replica.shared ? { shared: replica.shared } : {}),
        ...endpoint,
        ...(flags.port ? { port: flags.port } : {}),
        ...(flags.sessionIdle ? { idleMs: flags.sessionIdle * 1000 } : {}),
        ...(flags.maxSessions ? { maxSessions: flags.maxSessions } : {}),
        // Reaping is worth a line for an operator; the id is not (it admits to the session).
        onSessionEnd: (_id, reason) => {
          if (reason === 'idle' || reason === 'evicted')
            io.err(`${label}: closed an HTTP session (${reason})\n`);
        },
      });
      closeFront = async () => {
        await http.close();
        await replica.state?.close();
      };
      drain = async () => {
        const limit = (flags.drain ?? DEFAULT_DRAIN_S) * 1000;
        if (!(await http.drain(limit)))
          io.err(`${label}: calls still in progress after ${limit / 1000} s; ending them\n`);
      };
      if (oauth && flags.oauthResource === undefined) oauth.serveAt(http.url);
      const guard = tokens
        ? ` (bearer tokens: ${tokens.names.join(', ')})`
        : oauth
          ? ` (OAuth: access tokens of ${flags.oauthIssuer})`
          : '';
      const mounts = (endpoint.mounts ?? []).map((m) => new URL(m.path, http.url).pathname);
      const also = mounts.length > 0 ? `; also ${mounts.join(', ')}` : '';
      io.err(`${label} on ${http.url}${guard}${also}\n`);
      await onListening?.(http.url);
    } else {
      const { client } = httpOptions;
      const handle = serveOverStdio(factory, {
        onClose: clientLeft,
        ...(client ? { input: client.input } : {}),
        ...(intercept ? { intercept } : {}),
      });
      client?.serving();
      closeFront = async () => {
        await handle.close();
        client?.release();
      };
    }
    await done;
    // Stop taking requests and let the calls in progress end (the balancer moves on to other replicas).
    await drain();
  } finally {
    // From here a signal is a hard stop: the shutdown is already under way.
    unregister();
    const teardown = async () => {
      try {
        await closeFront();
      } finally {
        await shutdown();
      }
    };
    await withinBudget(teardown(), SHUTDOWN_BUDGET_MS);
    // Whatever outlived the shutdown (a call still running, a ladder that hung) goes now.
    killAllGroups();
  }
}

/** Waits for `work`, or for `ms`, whichever comes first (a failure of `work` within the time still throws). */
async function withinBudget(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([work, budget]);
  } finally {
    clearTimeout(timer);
  }
}

/** The OAuth protected-resource check `--auth oauth` asks for (jose is loaded only then). */
async function protectedResource(
  flags: ServeFlags,
  onError: (error: Error) => void,
): Promise<ProtectedResource | undefined> {
  if (authMode(flags) !== 'oauth' || flags.oauthIssuer === undefined) return undefined;
  const { ProtectedResource } = await import('../serve/protected-resource.js');
  return new ProtectedResource({
    issuer: flags.oauthIssuer,
    ...(flags.oauthResource === undefined ? {} : { resource: flags.oauthResource }),
    ...(flags.oauthAudience === undefined ? {} : { audience: flags.oauthAudience }),
    ...((flags.oauthScope ?? []).length > 0 ? { scopes: flags.oauthScope } : {}),
    onError,
  });
}

/** The tokens `--tokens FILE` or MCPKIT_AUTH_TOKEN name, when auth is on. */
async function bearerTokens(io: CliIO, flags: ServeFlags, label: string): Promise<BearerTokens | undefined> {
  if ((flags.auth ?? (flags.tokens !== undefined ? 'token' : 'none')) !== 'token') return undefined;
  const { BearerTokens, tokenFileExposure } = await import('../serve/bearer-tokens.js');
  if (flags.tokens === undefined)
    return BearerTokens.single('env', process.env.MCPKIT_AUTH_TOKEN ?? '', 'MCPKIT_AUTH_TOKEN');
  const exposure = tokenFileExposure(flags.tokens);
  if (exposure) io.err(`${label}: warning: ${exposure}\n`);
  return BearerTokens.fromFile(flags.tokens, (error) =>
    io.err(`${label}: ${error.message}; the tokens in force stay\n`),
  );
}
