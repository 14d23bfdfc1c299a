import type { Transport } from '@modelcontextprotocol/client';
import { isMcpkitError, McpkitError } from '../errors/index.js';
import { exitWords, stderrReason } from '../internal/failure-words.js';
import { describeRemoteError, innermostCause, type RemoteFailure } from '../internal/remote-failure.js';
import type { StartStep } from '../sandbox/index.js';
import { findNeedsLogin } from './auth/needs-login.js';
import { FallbackFailed } from './connect-plan.js';
import type { FailureCategory } from './events.js';
import type { ServerFailure } from './server-handle.js';
import { SpawnError, StdioTransport } from './stdio-transport.js';

/** A server failed to start: the category says how. */
export class ServerStartError extends McpkitError {
  constructor(
    readonly server: string,
    readonly category: FailureCategory,
    message: string,
    cause?: unknown,
  ) {
    // "needs a login: run …" is the whole story; "failed to start (auth)" would only bury it.
    const line =
      category === 'auth'
        ? `server "${server}" ${message}`
        : `server "${server}" failed to start (${category}): ${message}`;
    super('SERVER_FAILED', line, { server, cause });
  }
}

/** How a stdio server's process ended. */
export interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What is known when a start fails, for saying why. */
export interface StartFacts {
  error: unknown;
  timeoutMs: number;
  /** The startup deadline passed. */
  timedOut: boolean;
  /** A remote server's URL. */
  url?: string | undefined;
  /** The network error of the last retried attempt (a timeout would hide it). */
  lastRetryError?: unknown;
  /** How many connect attempts were made, when more than one. */
  attempts?: number;
  /** A stdio server's last stderr lines, and how its process ended if it did. */
  stderr?: readonly string[];
  exit?: ProcessEnd | undefined;
  /** The slow step a stdio start was still in when it ended (`installing @acme/notes-mcp`). */
  step?: StartStep | undefined;
}

/** The failure (category and one-line message) of a start that went wrong. */
export function startFailure(facts: StartFacts): ServerFailure {
  const { error, url } = facts;
  if (facts.timedOut) {
    const last = facts.lastRetryError === undefined ? undefined : remote(facts.lastRetryError, url);
    const tail = last === undefined ? '' : `; last attempt: ${last.cause}: ${last.hint}`;
    if (facts.step !== undefined)
      return {
        category: 'timeout',
        message: `still ${facts.step.doing} after ${facts.timeoutMs} ms (a first start downloads the package); raise "startupTimeout" in its entry, or run \`${facts.step.byHand}\` once`,
      };
    return { category: 'timeout', message: `no handshake within ${facts.timeoutMs} ms${tail}` };
  }
  if (error instanceof SpawnError) return { category: 'spawn', message: error.message };
  const login = findNeedsLogin(error);
  if (login) return { category: 'auth', message: login.detail };
  if (facts.exit) return { category: 'handshake', message: exitedMessage(facts.exit, facts.stderr ?? []) };
  const stderr = (facts.stderr ?? []).slice(-3);
  const tries = facts.attempts === undefined ? '' : ` (${facts.attempts} attempts)`;
  const known = remote(error, url);
  const message = known
    ? `${known.cause}${tries}: ${known.hint}`
    : url !== undefined && isFetchFailure(error)
      ? innermostCause(error, url)
      : messageOf(error);
  return {
    category: 'handshake',
    message: stderr.length > 0 ? `${message}; last stderr: ${stderr.join(' | ')}` : message,
  };
}

/** The failure of an entry that cannot be used (a `${VAR}` without value). */
export function configFailure(error: unknown): ServerFailure {
  return { category: 'config', message: isMcpkitError(error) ? error.message : String(error) };
}

/**
 * Closes the transport of a failed start and returns what a stdio server's process left: how it ended
 * on its own (an exit our close caused says nothing) and its last stderr lines, read to the end.
 */
export async function closeFailedTransport(
  transport: Transport | undefined,
): Promise<Pick<StartFacts, 'stderr' | 'exit' | 'step'>> {
  const exit = transport instanceof StdioTransport ? transport.exitStatus : undefined;
  const step = transport instanceof StdioTransport ? transport.startStep : undefined;
  await transport?.close().catch(() => undefined);
  if (!(transport instanceof StdioTransport)) return {};
  if (step !== undefined) return { step };
  // The exit can be seen before the last of stderr is read, and its last lines say why. The whole group
  // is gone after close(), so the pipe ends; the bound is for a process that escaped the group.
  if (exit) await settledWithin(transport.stderrEnded(), 1000);
  return { stderr: transport.recentStderr, exit };
}

/** Waits for `promise`, but no longer than `ms`. */
async function settledWithin(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([promise, bound]);
  clearTimeout(timer);
}

/** "exited with code 1 before the handshake finished: TypeError: …" — the line of stderr that says why. */
function exitedMessage(exit: ProcessEnd, stderr: readonly string[]): string {
  const how = exitWords(exit.code, exit.signal);
  const reason = stderrReason(stderr);
  return `the server ${how} before the handshake finished${reason ? `: ${reason}` : ' (nothing on stderr)'}`;
}

/** The cause of a failed connect in a few words: the network or HTTP reason when there is one. */
export function causeOf(error: unknown, url: string | undefined): string {
  return remote(error, url)?.cause ?? messageOf(error);
}

function remote(error: unknown, url: string | undefined): RemoteFailure | undefined {
  if (url === undefined) return undefined;
  return describeRemoteError(error instanceof FallbackFailed ? error.first : error, url);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A failure whose cause chain holds fetch's own "fetch failed" (its reason is deeper down). */
function isFetchFailure(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (e instanceof TypeError && e.message === 'fetch failed') return true;
  return false;
}
