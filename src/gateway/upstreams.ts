import { EventEmitter } from 'node:events';
import { ProtocolError, ProtocolErrorCode, type ServerCapabilities } from '@modelcontextprotocol/server';
import {
  type FailureCategory,
  type ListKind,
  type RawRelayPort,
  Runtime,
  type RuntimeAuthOptions,
  type RuntimeHandlers,
  type RuntimeServerConfig,
  type ServerHandle,
} from '../client/index.js';
import { runsMcpkitGateway, transportOf } from '../config/index.js';
import { PACKAGE_VERSION } from '../internal/package-version.js';
import { type SandboxStatus, sandboxStatus } from '../sandbox/index.js';
import type { CatalogSource } from './catalog.js';

/** One upstream as `gateway_status` shows it. */
export interface UpstreamStatus {
  name: string;
  /** `needs-login`: a remote server waiting for `mcpkit auth login <name>` (it comes up once that is done). */
  state: 'starting' | 'ready' | 'restarting' | 'failed' | 'needs-login' | 'stopped';
  transport: 'stdio' | 'http' | 'sse';
  protocolVersion?: string;
  restarts: number;
  lastError?: string;
  /** When the next restart is due (ISO time), while restarting. */
  nextRestartAt?: string;
  /** A stdio server's sandbox once it was started: on, off or unavailable, and its last denials. */
  sandbox?: SandboxStatus;
}

/** A stdio server's sandbox status, as a part of its {@link UpstreamStatus}. */
function sandboxOf(name: string, transport: string): { sandbox?: SandboxStatus } {
  const sandbox = transport === 'stdio' ? sandboxStatus(name) : undefined;
  return sandbox ? { sandbox } : {};
}

/** Options for {@link Upstreams.start}. */
export interface UpstreamsOptions {
  servers: readonly RuntimeServerConfig[];
  handlers: RuntimeHandlers;
  /** The environment upstreams inherit and `${VAR}`s expand from; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Per server, unless its entry has `startupTimeout`. Default 30 s. */
  startupTimeoutMs?: number;
  /** Per request, unless its entry has `timeout`. Default 60 s. */
  requestTimeoutMs?: number;
  /** First restart delay after a crash; doubles per failed attempt. Default 1 s. */
  restartDelayMs?: number;
  /** The cap of that delay. Default 30 s. */
  restartMaxDelayMs?: number;
  /** How long {@link Upstreams.start} waits for servers to be ready; the rest join later. Default 10 s. */
  readyWaitMs?: number;
  log: (message: string) => void;
  /** OAuth for remote upstreams (who shows a login URL, and when one can); default: the user's store. */
  auth?: RuntimeAuthOptions;
}

interface Health {
  restarts: number;
  attempt: number;
  startedAt?: number | undefined;
  lastError?: string;
  timer?: NodeJS.Timeout | undefined;
  nextRestartAt?: number;
  /** Given up: the config is unusable or the command does not exist (until the config changes). */
  gaveUp?: boolean;
  /** Never started, and why (an entry that runs this gateway itself). */
  refused?: string | undefined;
  /** Waits for an OAuth login: the one line that says how, while it does. */
  needsLogin?: string | undefined;
  /** A login shown to a client is under way. */
  loggingIn?: boolean;
  /**
   * Down since its last state change was logged: further failures, retries and restarts of this stretch
   * are counted in the status, not logged again, until it is ready (one line per state change).
   */
  down?: boolean;
  /** The first restart of this down stretch was logged. */
  restartLogged?: boolean;
}

/** Events of the upstream set: which lists may have changed, and why. */
export interface UpstreamsEventMap {
  changed: [{ server: string; lists: readonly ListKind[] }];
}

const ALL_LISTS: readonly ListKind[] = ['tools', 'resources', 'prompts'];
/** Why an entry that runs this gateway is never started. */
const SELF_REFERENCE =
  'runs this gateway itself; remove it from the config the gateway serves (`mcpkit remove <name>`)';
/** A server that stayed up this long starts its backoff from the beginning after a crash. */
const STABLE_MS = 30_000;

/**
 * The gateway's upstream servers, kept alive: a Runtime under log-and-continue, a restart with
 * exponential backoff after a crash, and reconciliation with a new configuration (live config).
 */
export class Upstreams extends EventEmitter<UpstreamsEventMap> {
  readonly runtime: Runtime;
  /** The servers to run, by name (with their transport seam, for in-process ones). */
  private readonly desired = new Map<string, RuntimeServerConfig>();
  private readonly health = new Map<string, Health>();
  private closed = false;
  /** Stops watching the token store (watched while an upstream needs a login). */
  private unwatchLogins: (() => void) | undefined;

  private constructor(
    runtime: Runtime,
    private readonly options: UpstreamsOptions,
  ) {
    super();
    this.runtime = runtime;
    runtime.on('server_started', ({ server }) => {
      const health = this.healthOf(server);
      if (health.down)
        options.log(
          `server "${server}": ready again (after ${health.restarts} restart${health.restarts === 1 ? '' : 's'})`,
        );
      health.down = false;
      health.restartLogged = false;
      health.startedAt = Date.now();
      health.gaveUp = false;
      health.needsLogin = undefined;
      health.loggingIn = false;
      this.emit('changed', { server, lists: ALL_LISTS });
    });
    runtime.on('server_failed', ({ server, category, message }) => this.onFailed(server, category, message));
    runtime.on('list_changed', ({ server, list }) => this.emit('changed', { server, lists: [list] }));
    // An unreachable remote upstream says why as soon as it is retried, once: a dead one retried for hours
    // logs one line, then one more when it is back.
    runtime.on('server_retrying', ({ server, cause }) => {
      const health = this.healthOf(server);
      health.lastError = cause;
      if (health.down) return;
      health.down = true;
      options.log(`server "${server}": unreachable (${cause}), retrying with backoff`);
    });
  }

  /** Starts every enabled server in parallel; failures are logged and retried, never fatal. */
  static async start(options: UpstreamsOptions): Promise<Upstreams> {
    const runtime = await Runtime.create({
      servers: [],
      startupPolicy: 'log-and-continue',
      handlers: options.handlers,
      clientInfo: { name: 'mcpkit-gateway', version: PACKAGE_VERSION },
      ...(options.env ? { env: options.env } : {}),
      ...(options.startupTimeoutMs ? { startupTimeoutMs: options.startupTimeoutMs } : {}),
      ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      ...(options.auth ? { auth: options.auth } : {}),
    });
    const upstreams = new Upstreams(runtime, options);
    // Slow servers (an `npx` that downloads first) must not hold up the client's own start-up timeout: past
    // the wait they keep starting in the background and join with list_changed.
    const settled = upstreams.reconcile(options.servers);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, options.readyWaitMs ?? 10_000);
    });
    await Promise.race([settled, waited]);
    clearTimeout(timer);
    return upstreams;
  }

  /** The ready servers, for the catalog. */
  sources(): CatalogSource[] {
    return this.runtime
      .servers()
      .filter((connection) => connection.status === 'ready')
      .map((connection) => {
        const { alwaysLoad, prefix, rename } = connection.entry;
        return { connection, alwaysLoad: alwaysLoad === true, naming: { prefix, rename } };
      });
  }

  /** A server by name, if it is configured. */
  connection(name: string): ServerHandle | undefined {
    return this.runtime.find(name);
  }

  /** The raw relay of a ready server that can relay (see {@link Runtime.relay}). */
  relay(name: string): RawRelayPort | undefined {
    return this.runtime.relay(name);
  }

  /** A ready server, or the protocol error (-32603) saying why it cannot take requests now. */
  ready(name: string): ServerHandle {
    const connection = this.connection(name);
    const down = this.unavailable(name);
    if (!connection || down)
      throw new ProtocolError(ProtocolErrorCode.InternalError, down ?? `no server ${name}`);
    return connection;
  }

  /** The one ready server offering a capability, when exactly one does. */
  onlyWith(capability: keyof ServerCapabilities): string | undefined {
    const offering = this.sources().filter((s) => s.connection.capabilities?.[capability]);
    return offering.length === 1 ? offering[0]?.connection.id : undefined;
  }

  /** Why a server cannot take calls now, or undefined when it can. */
  unavailable(name: string): string | undefined {
    const refused = this.health.get(name)?.refused;
    if (refused) return `server "${name}" ${refused}`;
    const connection = this.connection(name);
    if (!connection) return `server "${name}" is no longer configured`;
    if (connection.status === 'ready') return undefined;
    const health = this.healthOf(name);
    if (health.needsLogin && connection.status === 'failed') {
      // A client that opens URLs is connected: show it the login now; this call still fails.
      if (!health.loggingIn && this.options.auth?.canShowLogin?.()) this.retryLogin(name);
      return `server "${name}" ${health.needsLogin}`;
    }
    const why = health.lastError ? ` (last error: ${health.lastError})` : '';
    if (health.timer) {
      const seconds = Math.max(0, Math.round(((health.nextRestartAt ?? Date.now()) - Date.now()) / 100) / 10);
      return `server "${name}" is down and restarts in ${seconds} s${why}`;
    }
    return `server "${name}" is ${connection.status}${why}`;
  }

  /** The upstream waiting for a login whose tool `exposed` (`<server>__<tool>`) would be, if any. */
  waitingForLogin(exposed: string): string | undefined {
    for (const [name, health] of this.health)
      if (health.needsLogin && exposed.startsWith(`${name}__`)) return name;
    return undefined;
  }

  /** Every configured server's state, restarts and last error. */
  status(): UpstreamStatus[] {
    return [...this.desired.entries()].map(([name, { entry }]) => {
      const connection = this.connection(name);
      const health = this.healthOf(name);
      const state: UpstreamStatus['state'] = health.refused
        ? 'failed'
        : health.needsLogin && connection?.status === 'failed'
          ? 'needs-login'
          : health.timer
            ? 'restarting'
            : (connection?.status ?? 'stopped');
      return {
        name,
        state,
        transport: transportOf(entry),
        ...(connection?.protocolVersion ? { protocolVersion: connection.protocolVersion } : {}),
        restarts: health.restarts,
        ...sandboxOf(name, transportOf(entry)),
        ...(health.lastError ? { lastError: health.lastError } : {}),
        ...(health.timer && health.nextRestartAt
          ? { nextRestartAt: new Date(health.nextRestartAt).toISOString() }
          : {}),
      };
    });
  }

  /**
   * Makes the running set match `servers`: new ones are started, removed ones stopped, changed ones
   * restarted with their new entry. Disabled entries count as removed.
   */
  async reconcile(
    servers: readonly RuntimeServerConfig[],
  ): Promise<{ added: string[]; removed: string[]; changed: string[] }> {
    const next = new Map(servers.filter((s) => s.entry.disabled !== true).map((s) => [s.name, s]));
    const added: string[] = [];
    const removed: string[] = [];
    const changed: string[] = [];
    const work: Promise<unknown>[] = [];
    for (const name of this.desired.keys()) {
      if (next.has(name)) continue;
      removed.push(name);
      this.desired.delete(name);
      clearTimeout(this.health.get(name)?.timer);
      this.health.delete(name);
      work.push(this.runtime.remove(name).catch(() => undefined));
    }
    for (const [name, server] of next) {
      const old = this.desired.get(name);
      if (old !== undefined && sameServer(old, server)) continue;
      (old === undefined ? added : changed).push(name);
      this.desired.set(name, server);
      const health = this.healthOf(name);
      clearTimeout(health.timer);
      health.timer = undefined;
      health.gaveUp = false;
      health.attempt = 0;
      health.refused = undefined;
      // A new entry is a new story: its first failure is worth a line again.
      health.down = false;
      health.restartLogged = false;
      // An entry that runs this gateway would start a copy of it, which starts another: never started.
      if (runsMcpkitGateway(server.entry)) {
        health.refused = SELF_REFERENCE;
        health.lastError = SELF_REFERENCE;
        this.options.log(`server "${name}" not started: it ${SELF_REFERENCE}`);
        if (this.connection(name)) work.push(this.runtime.remove(name).catch(() => undefined));
        continue;
      }
      work.push(this.launch(name, server));
    }
    await Promise.all(work);
    for (const name of removed) this.emit('changed', { server: name, lists: ALL_LISTS });
    return { added, removed, changed };
  }

  private async launch(name: string, server: RuntimeServerConfig): Promise<void> {
    if (this.connection(name)) await this.runtime.remove(name).catch(() => undefined);
    if (this.closed || this.desired.get(name) !== server) return;
    await this.runtime.add(server);
  }

  private onFailed(server: string, category: FailureCategory, message: string): void {
    const health = this.healthOf(server);
    health.lastError = `${category}: ${message}`;
    health.loggingIn = false;
    if (this.closed || !this.desired.has(server)) return;
    if (category === 'auth') {
      // No restarts: only a login helps. The store is watched; a login by `mcpkit auth login` brings it up.
      health.needsLogin = message;
      this.options.log(`server "${server}" ${message}`);
      this.emit('changed', { server, lists: ALL_LISTS });
      this.watchLogins();
      return;
    }
    if (!health.down) {
      const retried = category === 'config' || category === 'spawn' ? '' : '; restarting with backoff';
      this.options.log(`server "${server}" failed (${category}): ${message}${retried}`);
    }
    health.down = true;
    this.emit('changed', { server, lists: ALL_LISTS });
    // A config error or a missing command will not mend itself: wait for the config to change.
    if (category === 'config' || category === 'spawn') {
      health.gaveUp = true;
      return;
    }
    const uptime = health.startedAt === undefined ? 0 : Date.now() - health.startedAt;
    health.startedAt = undefined;
    health.attempt = uptime > STABLE_MS ? 1 : health.attempt + 1;
    const base = this.options.restartDelayMs ?? 1000;
    const delay = Math.min(base * 2 ** (health.attempt - 1), this.options.restartMaxDelayMs ?? 30_000);
    health.nextRestartAt = Date.now() + delay;
    clearTimeout(health.timer);
    health.timer = setTimeout(() => {
      health.timer = undefined;
      const config = this.desired.get(server);
      if (this.closed || config === undefined) return;
      health.restarts++;
      if (!health.restartLogged)
        this.options.log(
          `restarting server "${server}" (restart ${health.restarts}); quiet until it is ready`,
        );
      health.restartLogged = true;
      void this.launch(server, config);
    }, delay);
    health.timer.unref();
  }

  /** Watches the token store while some upstream needs a login; a change starts those upstreams again. */
  private watchLogins(): void {
    if (this.unwatchLogins || this.closed) return;
    this.unwatchLogins = this.runtime.tokenStore?.watch?.(() => {
      for (const [name, health] of this.health)
        if (health.needsLogin && !health.loggingIn) this.retryLogin(name);
    });
  }

  private retryLogin(name: string): void {
    const config = this.desired.get(name);
    const health = this.healthOf(name);
    if (this.closed || config === undefined) return;
    health.loggingIn = true;
    void this.launch(name, config);
  }

  private healthOf(name: string): Health {
    let health = this.health.get(name);
    if (!health) {
      health = { restarts: 0, attempt: 0 };
      this.health.set(name, health);
    }
    return health;
  }

  /** Stops every server and every pending restart. */
  async close(): Promise<void> {
    this.closed = true;
    this.unwatchLogins?.();
    for (const health of this.health.values()) clearTimeout(health.timer);
    await this.runtime.close();
  }
}

/** Same entry and same transport seam: nothing to restart. */
function sameServer(a: RuntimeServerConfig, b: RuntimeServerConfig): boolean {
  return a.transport === b.transport && JSON.stringify(a.entry) === JSON.stringify(b.entry);
}
