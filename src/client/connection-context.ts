import type { Implementation } from '@modelcontextprotocol/client';
import type { ConnectionAuth } from './auth/remote-auth.js';
import type { RuntimeEventMap } from './events.js';
import type { RuntimeHandlers } from './handlers.js';

/** What a server connection needs from its runtime. */
export interface ConnectionContext {
  clientInfo: Implementation;
  handlers: RuntimeHandlers;
  env: Readonly<Record<string, string | undefined>>;
  requestTimeoutMs: number;
  /** OAuth for remote servers (the token store, who shows a login); undefined: none. */
  auth: ConnectionAuth | undefined;
  emit<K extends keyof RuntimeEventMap>(name: K, ...args: RuntimeEventMap[K]): void;
  /** Whether anyone listens to an event (so hot paths can skip building it). */
  listening(name: keyof RuntimeEventMap): boolean;
}
