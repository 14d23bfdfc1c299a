import type { LoggingLevel } from '@modelcontextprotocol/client';

/** Why a server could not start or stopped working. */
export type FailureCategory =
  /** The process could not be started (missing command, bad cwd). */
  | 'spawn'
  /** Connecting and the handshake took longer than the startup timeout. */
  | 'timeout'
  /** The server answered, but the handshake failed (version, HTTP status, protocol error). */
  | 'handshake'
  /** The process exited or the connection dropped. */
  | 'transport_closed'
  /** The config could not be used (a `${VAR}` without value). */
  | 'config'
  /** A remote server needs an OAuth login (or a new one: the last expired or was revoked). */
  | 'auth';

/** The lists a server can announce as changed. */
export type ListKind = 'tools' | 'resources' | 'prompts';

/** Every event a Runtime emits, by name, with its payload. Secrets never appear in them. */
export interface RuntimeEventMap {
  server_started: [{ server: string; protocolVersion: string | undefined; serverName: string | undefined }];
  server_failed: [{ server: string; category: FailureCategory; message: string }];
  server_stopped: [{ server: string }];
  tool_invoked: [{ server: string; tool: string }];
  tool_completed: [{ server: string; tool: string; durationMs: number; isError: boolean }];
  resource_read: [{ server: string; uri: string }];
  prompt_rendered: [{ server: string; prompt: string }];
  list_changed: [{ server: string; list: ListKind }];
  /** A resource the client subscribed to changed (`notifications/resources/updated`). */
  resource_updated: [{ server: string; uri: string }];
  progress: [{ server: string; progress: number; total?: number; message?: string }];
  server_log: [{ server: string; level: LoggingLevel; logger?: string; data: unknown }];
  stderr: [{ server: string; line: string }];
  /**
   * A remote connect failed on the network and will be tried again after `delayMs`: `attempt` (from 1) of
   * `attempts` failed because of `cause` (one line: "connection refused at 127.0.0.1:8080").
   */
  server_retrying: [{ server: string; attempt: number; attempts: number; delayMs: number; cause: string }];
}

/** Listeners attached before any server starts, so nothing a server does while starting is missed. */
export type RuntimeListeners = { [K in keyof RuntimeEventMap]?: (...args: RuntimeEventMap[K]) => void };

/** The name of a Runtime event (`server_started`, `tool_completed`, `stderr`, …). */
export type RuntimeEventName = keyof RuntimeEventMap;
