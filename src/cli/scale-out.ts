import type { TokenStore } from '../client/index.js';
import type { RedisState, SharedSessions } from '../serve/index.js';
import type { CliIO } from './io.js';
import { usage } from './options.js';

/** The flags of a replica behind a load balancer (see docs/scale-out.md). */
export interface ReplicaFlags {
  /** A file with the key replicas seal 2025 session ids with (or MCPKIT_SESSION_KEY). */
  sessionKey?: string;
  /** `redis://host:port`: SSE events, ended sessions and pins shared with the other replicas (or MCPKIT_STATE). */
  state?: string;
}

/** What a replica shares, from its flags: nothing, a session key, or a key and Redis. */
export interface ReplicaState {
  shared?: SharedSessions;
  /** Connected Redis (close it at shutdown). */
  state?: RedisState;
  /** The key material (the token store's key is derived from it). */
  secret?: string;
}

/** The Redis URL a command was given (`--state` or MCPKIT_STATE), if any. */
export const stateUrl = (flags: ReplicaFlags, io: CliIO): string | undefined =>
  flags.state ?? (io.env.MCPKIT_STATE || undefined);

/**
 * Opens what `--session-key` and `--state` name. Redis without a key would share events of sessions no
 * other replica can open, so it is refused.
 */
export async function replicaState(flags: ReplicaFlags, io: CliIO, label: string): Promise<ReplicaState> {
  const url = stateUrl(flags, io);
  const envKey = io.env.MCPKIT_SESSION_KEY;
  if (flags.sessionKey === undefined && !envKey) {
    if (url !== undefined)
      usage('--state needs --session-key FILE (or MCPKIT_SESSION_KEY): replicas seal session ids with it');
    return {};
  }
  const { SessionSeal, RedisState } = await import('../serve/index.js');
  const secret = flags.sessionKey !== undefined ? await readKey(flags.sessionKey) : (envKey ?? '');
  const seal = new SessionSeal(secret);
  if (url === undefined) return { shared: { seal }, secret };
  const state = await RedisState.connect(url, (error) => io.err(`${label}: ${error.message}\n`));
  return { shared: { seal, state }, state, secret };
}

async function readKey(file: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  return readFile(file, 'utf8').catch((cause: NodeJS.ErrnoException) =>
    usage(`--session-key ${file}: cannot read it (${cause.code ?? cause.message})`),
  );
}

/**
 * The token store a command uses: the user's file, or with `--state` the replicas' store in Redis (encrypted
 * under a key from `--session-key` / MCPKIT_SESSION_KEY). `close` lets go of Redis.
 */
export async function tokenStoreFor(
  flags: ReplicaFlags,
  io: CliIO,
): Promise<{ store: TokenStore; close: () => Promise<void> }> {
  const { FileTokenStore, RedisTokenStore } = await import('../client/index.js');
  if (stateUrl(flags, io) === undefined)
    return { store: FileTokenStore.forUser(io.env), close: async () => undefined };
  const replica = await replicaState(flags, io, 'mcpkit auth');
  const state = replica.state as RedisState;
  return { store: RedisTokenStore.over(state, replica.secret ?? ''), close: () => state.close() };
}
