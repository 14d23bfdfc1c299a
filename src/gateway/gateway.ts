import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/client';
import {
  type CallToolResult,
  InMemoryServerEventBus,
  type McpServerFactory,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import type { ListKind, RuntimeServerConfig } from '../client/index.js';
import { type Profile, userConfigDir } from '../config/index.js';
import { McpkitError } from '../errors/index.js';
import type { FrameIntercept } from '../serve/index.js';
import type { Catalog } from './catalog.js';
import { Downstreams } from './downstream.js';
import { Endpoint, type EndpointParts, type TaskPorts } from './endpoint.js';
import type { GatewayOptions, GatewayProfile } from './gateway-options.js';
import { InputFlows } from './input-flows.js';
import { LiveCatalog } from './live-catalog.js';
import { loginByElicitation, urlOpener } from './login-elicitation.js';
import { CallEvents } from './observers/call-events.js';
import { PinStore, type PinVerdict } from './pins.js';
import { type ProfileView, profileView } from './profiles.js';
import { ResultStore } from './result-store.js';
import { createServer } from './server-factory.js';
import { taskPorts } from './tasks/task-ports.js';
import { TaskRoutes } from './tasks/task-routes.js';
import { GatewayTasks } from './tasks/task-store.js';
import { type UpstreamStatus, Upstreams } from './upstreams.js';

export type { GatewayOptions, GatewayProfile } from './gateway-options.js';

/**
 * Many MCP servers behind one: a {@link McpServerFactory} to serve (stdio or HTTP, both protocol
 * generations) over a supervised set of upstreams. Upstreams are server configs — from config files, or
 * in-process ones with a `transport` factory (`RuntimeServerConfig.transport`).
 *
 * @example
 * const gateway = await Gateway.create({ servers: effectiveServers(await loadConfig()) });
 * serveOverStdio(gateway.factory, { onClose: () => gateway.close(), intercept: gateway.intercept() });
 */
export class Gateway {
  readonly factory: McpServerFactory;
  /**
   * Changes for 2026-07-28 clients' `subscriptions/listen` streams over HTTP (hand it to the HTTP
   * endpoint as its `bus`): upstream list changes and resource updates are published here.
   */
  readonly events: ServerEventBus = new InMemoryServerEventBus();
  /** Every tool call, for observers: the dashboard, the audit log, tracing (see {@link CallEvents}). */
  readonly calls: CallEvents;
  private readonly downstreams = new Downstreams();
  /** 2025 upstreams' mid-call requests, put to 2026-07-28 clients as `input_required` rounds. */
  private readonly inputs: InputFlows;
  private upstreams!: Upstreams;
  /** The catalog over time, and what the gateway advertises with it. */
  private live!: LiveCatalog;
  /** What every endpoint shares. */
  private parts!: EndpointParts;
  /** What `factory` and `intercept()` serve: every tool, or the `profile` option's. */
  private main!: Endpoint;
  private readonly endpoints = new Map<string, Endpoint>();
  private offered!: GatewayTasks;
  private pins?: PinStore;
  private readonly reported = new Set<string>();
  private readonly log: (message: string) => void;
  private readonly results: ResultStore;

  private constructor(private options: GatewayOptions) {
    this.log = options.log ?? ((message) => process.stderr.write(`mcpkit gateway: ${message}\n`));
    this.calls = new CallEvents((error) =>
      this.once(`observer:${error.message}`, `a call observer failed: ${error.message}`),
    );
    this.inputs = new InputFlows(
      options.inputRoundTimeoutMs === undefined ? {} : { roundTimeoutMs: options.inputRoundTimeoutMs },
    );
    this.results = new ResultStore(options.resultStore);
    this.factory = (ctx) => createServer(ctx.era, this.main);
  }

  /** Starts the upstreams (failures are logged and retried) and builds the first catalog. */
  static async create(options: GatewayOptions): Promise<Gateway> {
    // An unknown profile fails before any upstream starts.
    const main =
      options.profile === undefined ? undefined : profileView(options.profiles ?? {}, options.profile);
    const gateway = new Gateway(options);
    const mode = options.pin ?? 'warn';
    if (mode !== 'off') {
      const file = options.pinFile ?? join(userConfigDir(options.env ?? process.env), 'pins.json');
      gateway.pins = await new PinStore(options.pinStore ?? file).load();
      gateway.pins.identify(options.servers);
    }
    const taskFile =
      options.taskFile ?? join(userConfigDir(options.env ?? process.env), 'gateway-tasks.json');
    gateway.offered = await new GatewayTasks(taskFile, gateway.log).load();
    gateway.upstreams = await Upstreams.start({
      servers: options.servers,
      handlers: gateway.downstreams.handlers(),
      log: gateway.log,
      // An upstream's login goes to a client that can open URLs; without one, `mcpkit auth login`.
      auth: {
        ...(options.tokenStore ? { store: options.tokenStore } : {}),
        onAuthorizationUrl: loginByElicitation(gateway.downstreams),
        canShowLogin: () => urlOpener(gateway.downstreams) !== undefined,
      },
      ...pick(options, [
        'env',
        'startupTimeoutMs',
        'requestTimeoutMs',
        'restartDelayMs',
        'restartMaxDelayMs',
        'readyWaitMs',
      ]),
    });
    const tasks = taskPorts(
      new TaskRoutes((server) => gateway.upstreams.relay(server), gateway.offered),
      gateway.offered,
    );
    gateway.wire(tasks);
    gateway.main = gateway.endpoint(main);
    gateway.upstreams.on('changed', ({ lists }) => gateway.invalidate(lists));
    gateway.upstreams.runtime.on('resource_updated', ({ uri }) => {
      gateway.downstreams.resourceUpdated(uri);
      gateway.events.publish({ kind: 'resource_updated', uri });
    });
    gateway.upstreams.runtime.on('server_log', ({ server, level, logger, data }) => {
      const name =
        gateway.parts.prefix === 'none' ? logger : logger === undefined ? server : `${server}/${logger}`;
      gateway.downstreams.log(level, name, data);
    });
    const catalog = await gateway.catalog();
    if (catalog.collisions.length > 0) {
      await gateway.close();
      throw new McpkitError(
        'INVALID_ARGUMENT',
        gateway.parts.prefix === 'none'
          ? `prefix "none" needs names that do not collide, but ${catalog.collisions.join('; ')}; use prefix "server"`
          : `exposed names must be unique, but ${catalog.collisions.join('; ')}; change the "prefix" or "rename" of one of them in the config`,
      );
    }
    gateway.live.serving = true;
    return gateway;
  }

  /** The current catalog (rebuilt after any upstream change). */
  catalog(): Promise<Catalog> {
    return this.live.get();
  }

  /**
   * The hot path for this gateway's clients (pass it to `serveOverStdio` or `serveOverHttp` as
   * `intercept`): plain tool calls are routed frame to frame, without the SDK's schema passes.
   */
  intercept(): FrameIntercept {
    return this.main.intercept();
  }

  /**
   * One profile of the `profiles` option, served on its own (over HTTP at `/mcp/<profile>`, beside the
   * gateway's own endpoint): its own listing, `tool_search` index and pins; a call to a tool outside it is an
   * unknown tool. An unknown name throws INVALID_ARGUMENT naming the profiles there are.
   */
  profile(name: string): GatewayProfile {
    const endpoint =
      this.endpoints.get(name) ?? this.endpoint(profileView(this.options.profiles ?? {}, name));
    return {
      name,
      factory: (ctx) => createServer(ctx.era, endpoint),
      intercept: () => endpoint.intercept(),
      catalog: endpoint.catalog,
    };
  }

  /** The names of the configured profiles (the `profiles` option, as updated). */
  profileNames(): string[] {
    return Object.keys(this.options.profiles ?? {});
  }

  /** The configured profiles by name (the `profiles` option, as updated): the dashboard lists them. */
  profileConfigs(): Readonly<Record<string, Profile>> {
    return this.options.profiles ?? {};
  }

  /** Each upstream's state, restarts and last error. */
  status(): UpstreamStatus[] {
    return this.upstreams.status();
  }

  /** How many clients are connected (for tests and status). */
  get clients(): number {
    return this.downstreams.size;
  }

  /** Applies a new server list (live config): starts, stops and restarts upstreams as needed. */
  async reconcile(servers: readonly RuntimeServerConfig[]) {
    this.pins?.identify(servers);
    const result = await this.upstreams.reconcile(servers);
    for (const name of result.removed) this.live.forget(name);
    const changes = [
      ...result.added.map((n) => `+${n}`),
      ...result.removed.map((n) => `-${n}`),
      ...result.changed.map((n) => `~${n}`),
    ];
    if (changes.length > 0) this.log(`config changed: ${changes.join(' ')}`);
    return result;
  }

  /**
   * Applies changed profiles (live config): each profile served so far follows its new definition (one that
   * went serves no tools; a new one is served once asked for with {@link Gateway.profile}).
   */
  updateProfiles(profiles: Readonly<Record<string, Profile>>): void {
    this.options = { ...this.options, profiles };
    for (const { view } of this.endpoints.values()) {
      if (!view) continue;
      const profile = Object.hasOwn(profiles, view.name) ? profiles[view.name] : undefined;
      if (!profile) this.log(`profile "${view.name}" is no longer in the config: it serves no tools now`);
      view.update(profile);
    }
    this.invalidate(['tools']);
  }

  /** What tool_search on another replica revealed to a client (its list grows here too). */
  revealedElsewhere(identity: string, names: string[]): void {
    for (const { deferral } of this.endpoints.values()) deferral.revealedElsewhere(identity, names);
  }

  /** Re-reads the pin file (after `mcpkit trust`), so trusted tools reappear. */
  async reloadPins(): Promise<void> {
    if (!this.pins) return;
    await this.pins.load();
    this.invalidate(['tools']);
  }

  /**
   * The input schema of an exposed tool, as its upstream listed it (for the HTTP endpoint's `toolSchema`:
   * `Mcp-Param-*` headers are checked against it).
   */
  toolSchema(name: string): unknown {
    return this.live.now()?.toolsByName.get(name)?.definition.inputSchema;
  }

  /** A tool's pin: `same` as pinned, `changed` since, `new` (not pinned yet), or `off` (not pinned at all). */
  pinState(server: string, tool: Tool): PinVerdict | 'off' {
    if (!this.pins || this.options.unpinned?.includes(server)) return 'off';
    return this.pins.peek(server, tool);
  }

  /** Accepts a server's current tool definitions, as `mcpkit trust` does; returns how many changed. */
  async trust(server: string): Promise<{ pinned: number; changed: number }> {
    if (!this.pins) throw new McpkitError('INVALID_ARGUMENT', 'tool pinning is off (--pin off)');
    const handle = this.upstreams.connection(server);
    if (handle?.status !== 'ready')
      throw new McpkitError('INVALID_ARGUMENT', `server "${server}" is not ready; trust it once it is`);
    const counts = this.pins.trust(server, await handle.listTools());
    await this.pins.save();
    this.invalidate(['tools']);
    return counts;
  }

  /** Calls a tool as a client would (the dashboard's form): the same routing, reported as `client`. */
  callTool(
    name: string,
    args: Record<string, unknown>,
    client: string,
    signal?: AbortSignal,
  ): Promise<CallToolResult> {
    return this.main.router.call(name, args, { client, identity: client, ...(signal ? { signal } : {}) });
  }

  /** Stops every upstream. */
  async close(): Promise<void> {
    this.live?.close();
    this.inputs.closeAll();
    await this.upstreams.close();
    await this.offered?.flush();
  }

  /** The catalog and what every endpoint shares, once the upstreams run. */
  private wire(tasks: TaskPorts): void {
    const { options } = this;
    this.live = new LiveCatalog({
      upstreams: this.upstreams,
      prefix: options.prefix ?? 'server',
      pins: this.pins,
      pinMode: options.pin ?? 'warn',
      unpinned: options.unpinned ?? [],
      toolIndexFile: options.toolIndexFile,
      extensions: [tasks.extension],
      log: this.log,
      once: (key, message) => this.once(key, message),
      changed: (lists) => {
        this.downstreams.listChanged(lists);
        for (const list of lists) this.events.publish({ kind: `${list}_list_changed` });
      },
    });
    this.parts = {
      live: this.live,
      upstreams: this.upstreams,
      downstreams: this.downstreams,
      inputs: this.inputs,
      calls: this.calls,
      results: this.results,
      tasks,
      prefix: options.prefix ?? 'server',
      deferThreshold: options.deferThreshold ?? Number.POSITIVE_INFINITY,
      shareRevealed: options.shareRevealed,
      maxResultTokens: options.maxResultTokens ?? 25_000,
      status: () => this.status(),
    };
  }

  /** An endpoint over every tool (no view) or a profile's: a router that sees only its tools. */
  private endpoint(view: ProfileView | undefined): Endpoint {
    const endpoint = new Endpoint(this.parts, view);
    this.endpoints.set(view?.name ?? '', endpoint);
    return endpoint;
  }

  private once(key: string, message: string): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.log(message);
  }

  /** Drops the catalog; shortly after, rebuilds it and tells clients which lists changed. */
  private invalidate(lists: Iterable<ListKind>): void {
    this.live.invalidate(lists);
  }
}

function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}
