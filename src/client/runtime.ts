import { EventEmitter } from 'node:events';
import type { Implementation, Transport } from '@modelcontextprotocol/client';
import type { ServerEntry } from '../config/index.js';
import { McpkitError } from '../errors/index.js';
import { connectionAuth, type RuntimeAuthOptions } from './auth/remote-auth.js';
import type { TokenStore } from './auth/token-store.js';
import type { ConnectAttempt } from './connect-plan.js';
import type { ConnectionContext } from './connection-context.js';
import type { RuntimeEventMap, RuntimeListeners } from './events.js';
import type { RuntimeHandlers } from './handlers.js';
import type { RawRelayPort } from './relay-port.js';
import { ServerConnection } from './server-connection.js';
import type { ServerHandle } from './server-handle.js';
import { ToolRegistry } from './tool-registry.js';

/** A server to run: its configured name and (unexpanded) entry — a `ConfiguredServer` fits. */
export interface RuntimeServerConfig {
  name: string;
  entry: ServerEntry;
  /**
   * The seam for in-process servers and tests: when set, each connect attempt (and each reconnect) takes a
   * fresh transport from here instead of spawning `entry.command` or dialling `entry.url`. The entry still
   * decides the plan (a `url` entry: Streamable HTTP, retries, then SSE; `attempt` says which is asked
   * for), names the server and carries its options (timeouts, tool filters).
   *
   * @example
   * const [client, server] = InMemoryTransport.createLinkedPair();
   * await mcpServer.connect(server);
   * await Runtime.create({ servers: [{ name: 'mem', entry: { command: 'in-process' }, transport: () => client }] });
   */
  transport?: (attempt: ConnectAttempt) => Transport;
}

/** How start-up failures are handled. */
export type StartupPolicy = 'fail-fast' | 'log-and-continue';

/** Options for {@link Runtime.create}. */
export interface RuntimeOptions {
  servers: readonly RuntimeServerConfig[];
  /** `fail-fast` (default): any failure closes the rest and rejects. `log-and-continue`: failures are events. */
  startupPolicy?: StartupPolicy;
  /** Per server, unless its entry has `startupTimeout`. Default 30 s. */
  startupTimeoutMs?: number;
  /** Per request, unless its entry has `timeout`. Default 60 s. */
  requestTimeoutMs?: number;
  clientInfo?: Implementation;
  handlers?: RuntimeHandlers;
  /** The environment `${VAR}`s expand from and stdio servers inherit from. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * OAuth for remote servers: the token store (default: the user's, shared with the CLI) and
   * `onAuthorizationUrl` to log in on demand; `false` turns OAuth off (a 401 stays an error).
   */
  auth?: RuntimeAuthOptions | false;
  /** Listeners attached before the first server starts (`stderr` while starting, `server_retrying`, …). */
  listeners?: RuntimeListeners;
  /**
   * Aborts start-up (Ctrl-C while a server has not answered its handshake): every server is stopped and
   * `create` rejects with the signal's reason. After start-up it does nothing; call `close()`.
   */
  signal?: AbortSignal;
}

const DEFAULT_CLIENT: Implementation = { name: 'mcpkit', version: '0' };

/** `work`, or the signal's reason as soon as it aborts (the work itself goes on: the caller stops it). */
function untilAborted(work: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return work;
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

/**
 * Many MCP servers at once. Servers connect in parallel; each has a {@link ServerHandle} with its own
 * status; events report everything that happens. `close()` stops every server (and every process).
 *
 * @example
 * const runtime = await Runtime.create({ servers: effectiveServers(await loadConfig()) });
 * const result = await runtime.server('fs').callTool('read_file', { path: 'README.md' });
 * await runtime.close();
 */
export class Runtime extends EventEmitter<RuntimeEventMap> {
  private readonly connections = new Map<string, ServerConnection>();
  private readonly context: ConnectionContext;
  private closing?: Promise<void>;

  private constructor(private readonly options: RuntimeOptions) {
    super();
    this.context = {
      clientInfo: options.clientInfo ?? DEFAULT_CLIENT,
      handlers: options.handlers ?? {},
      env: options.env ?? process.env,
      requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
      auth: connectionAuth(options.auth, options.env ?? process.env),
      emit: (name, ...args) => this.emit(name, ...(args as never)),
      listening: (name) => this.listenerCount(name) > 0,
    };
    const listeners = options.listeners ?? {};
    for (const name of Object.keys(listeners) as (keyof RuntimeEventMap)[]) {
      // The map's key and listener belong together; TypeScript cannot correlate them through a loop.
      const listener = listeners[name] as ((...args: unknown[]) => void) | undefined;
      if (listener) (this as EventEmitter).on(name, listener);
    }
  }

  /** Connects every enabled server in parallel and resolves per the startup policy. */
  static async create(options: RuntimeOptions): Promise<Runtime> {
    options.signal?.throwIfAborted();
    const runtime = new Runtime(options);
    const enabled = options.servers.filter((server) => server.entry.disabled !== true);
    const connections = enabled.map((server) => runtime.register(server));
    const starts = connections.map((connection) => runtime.startConnection(connection));
    const settled =
      (options.startupPolicy ?? 'fail-fast') === 'log-and-continue'
        ? Promise.allSettled(starts).then(() => undefined)
        : Promise.all(starts).then(() => undefined);
    try {
      await untilAborted(settled, options.signal);
    } catch (error) {
      await runtime.close();
      await Promise.allSettled(starts);
      throw error;
    }
    return runtime;
  }

  /** Where this Runtime keeps OAuth tokens (undefined with `auth: false`). */
  get tokenStore(): TokenStore | undefined {
    return this.context.auth?.store;
  }

  /** Every server, in the order they were added. */
  servers(): ServerHandle[] {
    return [...this.connections.values()].map((connection) => connection.handle);
  }

  /** A server by id; SERVER_NOT_FOUND names the ids there are. */
  server(id: string): ServerHandle {
    return this.connection(id).handle;
  }

  /** A server by id, or undefined (no error, no copying: for hot paths). */
  find(id: string): ServerHandle | undefined {
    return this.connections.get(id)?.handle;
  }

  /**
   * The raw relay of a ready server, for proxies: requests sent as they are, answers unparsed. Undefined
   * when the server is unknown, not ready, or its transport cannot relay (then use its typed requests).
   */
  relay(id: string): RawRelayPort | undefined {
    return this.connections.get(id)?.relayPort();
  }

  /** Adds and connects a server while running. Resolves with it; check `status` (failure is an event). */
  async add(server: RuntimeServerConfig): Promise<ServerHandle> {
    const connection = this.register(server);
    await this.startConnection(connection).catch(() => undefined);
    return connection.handle;
  }

  /** Stops a server and forgets it. */
  async remove(id: string): Promise<void> {
    const connection = this.connection(id);
    this.connections.delete(id);
    await connection.close();
  }

  /** The tools of every ready server, namespaced `mcp__<server>__<tool>`. */
  async tools(): Promise<ToolRegistry> {
    const ready = this.servers().filter((s) => s.status === 'ready');
    const lists = await Promise.all(
      ready.map(async (s) => ({ server: s.id, tools: await s.listTools().catch(() => []) })),
    );
    return new ToolRegistry(lists);
  }

  /** Stops every server; idempotent, and safe to call while servers are still starting. */
  close(): Promise<void> {
    this.closing ??= Promise.all([...this.connections.values()].map((s) => s.close())).then(() => undefined);
    return this.closing;
  }

  private connection(id: string): ServerConnection {
    const found = this.connections.get(id);
    if (!found) {
      const known = [...this.connections.keys()].join(', ') || 'none';
      throw new McpkitError('SERVER_NOT_FOUND', `no server "${id}" in this runtime (servers: ${known})`, {
        server: id,
      });
    }
    return found;
  }

  private register(server: RuntimeServerConfig): ServerConnection {
    if (this.closing) throw new McpkitError('SERVER_UNAVAILABLE', 'the runtime is closed');
    const id = this.uniqueId(server.name);
    const connection = new ServerConnection(id, server.entry, this.context, server.transport);
    this.connections.set(id, connection);
    return connection;
  }

  private startConnection(connection: ServerConnection): Promise<void> {
    const timeout = connection.entry.startupTimeout ?? this.options.startupTimeoutMs ?? 30_000;
    return connection.start(timeout);
  }

  /** Ids from names; a name seen again becomes `name-1`, `name-2`. */
  private uniqueId(name: string): string {
    if (!this.connections.has(name)) return name;
    for (let n = 1; ; n++) if (!this.connections.has(`${name}-${n}`)) return `${name}-${n}`;
  }
}
