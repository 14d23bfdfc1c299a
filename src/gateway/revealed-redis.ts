import { randomUUID } from 'node:crypto';
import type { RedisState } from '../serve/index.js';

const CHANNEL = 'mcpkit:revealed';

/** A gateway that takes other replicas' tool_search reveals (see {@link revealedOverRedis}). */
export interface RevealedTarget {
  revealedElsewhere(identity: string, names: string[]): void;
}

/**
 * tool_search reveals shared by replicas over Redis pub/sub: a client's search on one replica makes the
 * found tools join its list on every replica (a 2025 session's identity is its session id's key, the same
 * everywhere). Give `publish` to the gateway as `shareRevealed`, then `attach` the gateway. A replica that
 * starts later learns a client's finds from its next search.
 */
export function revealedOverRedis(state: RedisState): {
  publish: (identity: string, names: string[]) => void;
  attach: (gateway: RevealedTarget) => Promise<void>;
} {
  const self = randomUUID();
  return {
    publish: (identity, names) => {
      void state.redis
        .sendCommand(['PUBLISH', CHANNEL, JSON.stringify({ from: self, identity, names })])
        .catch(() => undefined);
    },
    attach: (gateway) =>
      state.subscribe(CHANNEL, (message) => {
        try {
          const { from, identity, names } = JSON.parse(message) as {
            from?: string;
            identity?: unknown;
            names?: unknown;
          };
          if (from === self || typeof identity !== 'string' || !Array.isArray(names)) return;
          gateway.revealedElsewhere(
            identity,
            names.filter((n): n is string => typeof n === 'string'),
          );
        } catch {
          // Not ours to read: ignored.
        }
      }),
  };
}
