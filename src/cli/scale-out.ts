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
  const seal =
    flags.sessionKey !== undefined
      ? await SessionSeal.fromFile(flags.sessionKey)
      : new SessionSeal(envKey ?? '');
  if (url === undefined) return { shared: { seal } };
  const state = await RedisState.connect(url, (error) => io.err(`${label}: ${error.message}\n`));
  return { shared: { seal, state }, state };
}
