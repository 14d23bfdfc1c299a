import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/client';
import {
  type CallToolResult,
  InMemoryServerEventBus,
  type McpServerFactory,
  type ProtocolEra,
  Server,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import type { ListKind, RuntimeServerConfig, TokenStore } from '../client/index.js';
import { type Profile, userConfigDir } from '../config/index.js';
import { McpkitError } from '../errors/index.js';
import { PACKAGE_VERSION } from '../internal/package-version.js';
import { writeFileAtomic } from '../internal/text-file.js';
import type { FrameIntercept } from '../serve/index.js';
import { type Advertised, advertised } from './advertised.js';
import { buildCatalog, type Catalog, type PrefixMode } from './catalog.js';
import { Deferral, envelopeClientInfo, identityOf } from './deferral.js';
import { Downstreams } from './downstream.js';
import { toolCallFastPath } from './fast-path.js';
import { InputFlows } from './input-flows.js';
import { loginByElicitation, urlOpener } from './login-elicitation.js';
import { CallEvents } from './observers/call-events.js';
import { type PinBackend, type PinMode, PinStore, type PinVerdict } from './pins.js';
import { type ProfileView, profileView } from './profiles.js';
import { type HandlerHost, installHandlers } from './proxy-handlers.js';
import { capResult } from './result-cap.js';
import { ResultStore, type ResultStoreLimits } from './result-store.js';
import { ToolRouter } from './router.js';
import { OFFERED_TASKS } from './tasks/task-handlers.js';
import { TaskRoutes } from './tasks/task-routes.js';
import { GatewayTasks } from './tasks/task-store.js';
import { toolIndexMarkdown } from './tool-search.js';
import { type UpstreamStatus, Upstreams, type UpstreamsOptions } from './upstreams.js';

/** Options for {@link Gateway.create}: the upstream settings of {@link UpstreamsOptions}, and these. */
export interface GatewayOptions extends Omit<UpstreamsOptions, 'handlers' | 'log'> {
  /** `server` (default): tools and prompts are `<server>__<name>`; `none`: names kept (must not clash). */
  prefix?: PrefixMode;
  /**
   * Deferred tools: with more tools than this, tools/list shows only `tool_search` and `call_tool` (and
   * what a client's searches found). Default: never — every tool is listed, because clients that check a
   * call against the listing (the SDK v2 client, MCP Inspector 2.x, the Python client) refuse or warn on a
   * tool they were not shown, and clients with many tools defer on their side (Claude Code's tool search).
   */
  deferThreshold?: number;
  /** Tool pinning: `warn` (default) logs a changed definition, `strict` hides the tool, `off` skips it. */
  pin?: PinMode;
  /** Where pins are kept; default `<user config dir>/pins.json`. */
  pinFile?: string;
  /** Where pins are kept instead of a file (replicas share one: `RedisPins`). */
  pinStore?: PinBackend;
  /** Where OAuth logins of remote upstreams are kept (default: the user's file store; replicas: `RedisTokenStore`). */
  tokenStore?: TokenStore;
  /** Tells other replicas what tool_search revealed to a client (`shareRevealed` wires it to Redis). */
  shareRevealed?: (identity: string, names: string[]) => void;
  /**
   * Where the finished tasks the gateway ran for its clients are kept across restarts; default
   * `<user config dir>/gateway-tasks.json`.
   */
  taskFile?: string;
  /**
   * Servers whose tools are never pinned: those that ship with mcpkit (the built-in code search), whose
   * definitions change with mcpkit's own version, not behind the user's back.
   */
  unpinned?: readonly string[];
  /** Named tool sets (a config file's `profiles`), each servable on its own ({@link Gateway.profile}). */
  profiles?: Readonly<Record<string, Profile>>;
  /**
   * The profile `factory` and `intercept()` serve (`mcpkit gateway --profile`); default every tool. An
   * unknown name fails `create` with INVALID_ARGUMENT naming the profiles there are.
   */
  profile?: string;
  /** Keep a Markdown index of every tool in this file. */
  toolIndexFile?: string;
  /** Diagnostics (default: stderr, prefixed `mcpkit gateway:`). */
  log?: (message: string) => void;
  /**
   * How long a 2026-07-28 client has to come back with the answers a 2025 upstream asked for mid-call
   * (an `input_required` round) before the gateway cancels that call; default 5 min.
   */
  inputRoundTimeoutMs?: number;
  /**
   * A tool result whose text is over this many tokens (estimated: characters / 4) is cut at a line boundary,
   * with a note; the whole is kept for the client to read as `mcpkit://results/<id>`. Default 25,000 (the cap
   * Claude Code applies); 0 turns it off.
   */
  maxResultTokens?: number;
  /** How many cut results are kept, and for how long (default 100, 64 Mi characters, 30 min). */
  resultStore?: ResultStoreLimits;
}

const SERVER_INFO = { name: 'mcpkit-gateway', version: PACKAGE_VERSION };

/** One profile of a gateway, served on its own endpoint (see {@link Gateway.profile}). */
export interface GatewayProfile {
  name: string;
  /** Serves this profile's tools only: its listing, `tool_search` index and pins. */
  factory: McpServerFactory;
  /** The hot path of this profile's clients (see {@link Gateway.intercept}). */
  intercept(): FrameIntercept;
  /** The catalog as this profile shows it. */
  catalog(): Promise<Catalog>;
}

/** One way the gateway is served: every tool, or one profile's, each with its own deferral and router. */
interface Endpoint {
  view: ProfileView | undefined;
  catalog(): Promise<Catalog>;
  deferral: Deferral;
  router: ToolRouter;
  host?: HandlerHost;
}

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
  /** What `factory` and `intercept()` serve: every tool, or the `profile` option's. */
  private main!: Endpoint;
  private readonly endpoints = new Map<string, Endpoint>();
  private tasks!: TaskRoutes;
  private offered!: GatewayTasks;
  private pins?: PinStore;
  private current: Promise<Catalog> | undefined;
  /** The catalog `current` resolved to, while it is current (the fast path reads it synchronously). */
  private built: Catalog | undefined;
  /** Exposed tool names seen before, with their server: a call to one whose server is down says so. */
  private readonly known = new Map<string, string>();
  private readonly reported = new Set<string>();
  private pendingLists = new Set<ListKind>();
  private refreshTimer: NodeJS.Timeout | undefined;
  private readonly log: (message: string) => void;
  private readonly prefix: PrefixMode;
  private advertised: Advertised | undefined;
  private readonly results: ResultStore;
  /** False until create() has checked the first catalog: a clash there is its error, not a warning. */
  private serving = false;

  private constructor(private options: GatewayOptions) {
    this.log = options.log ?? ((message) => process.stderr.write(`mcpkit gateway: ${message}\n`));
    this.calls = new CallEvents((error) =>
      this.once(`observer:${error.message}`, `a call observer failed: ${error.message}`),
    );
    this.prefix = options.prefix ?? 'server';
    this.inputs = new InputFlows(
      options.inputRoundTimeoutMs === undefined ? {} : { roundTimeoutMs: options.inputRoundTimeoutMs },
    );
    this.results = new ResultStore(options.resultStore);
    this.factory = (ctx) => this.createServer(ctx.era, this.main);
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
    gateway.tasks = new TaskRoutes((server) => gateway.upstreams.relay(server), gateway.offered);
    gateway.main = gateway.endpoint(main);
    gateway.upstreams.on('changed', ({ lists }) => gateway.invalidate(lists));
    gateway.upstreams.runtime.on('resource_updated', ({ uri }) => {
      gateway.downstreams.resourceUpdated(uri);
      gateway.events.publish({ kind: 'resource_updated', uri });
    });
    gateway.upstreams.runtime.on('server_log', ({ server, level, logger, data }) => {
      const name = gateway.prefix === 'none' ? logger : logger === undefined ? server : `${server}/${logger}`;
      gateway.downstreams.log(level, name, data);
    });
    const catalog = await gateway.catalog();
    if (catalog.collisions.length > 0) {
      await gateway.close();
      throw new McpkitError(
        'INVALID_ARGUMENT',
        gateway.prefix === 'none'
          ? `prefix "none" needs names that do not collide, but ${catalog.collisions.join('; ')}; use prefix "server"`
          : `exposed names must be unique, but ${catalog.collisions.join('; ')}; change the "prefix" or "rename" of one of them in the config`,
      );
    }
    gateway.serving = true;
    return gateway;
  }

  /** The current catalog (rebuilt after any upstream change). */
  catalog(): Promise<Catalog> {
    if (!this.current) {
      const building = this.build();
      this.current = building;
      building.then(
        (catalog) => {
          if (this.current === building) this.built = catalog;
        },
        () => undefined,
      );
    }
    return this.current;
  }

  /**
   * The hot path for this gateway's clients (pass it to `serveOverStdio` or `serveOverHttp` as
   * `intercept`): plain tool calls are routed frame to frame, without the SDK's schema passes.
   */
  intercept(): FrameIntercept {
    return this.fastPath(this.main);
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
      factory: (ctx) => this.createServer(ctx.era, endpoint),
      intercept: () => this.fastPath(endpoint),
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

  private fastPath(endpoint: Endpoint): FrameIntercept {
    return toolCallFastPath({
      router: endpoint.router,
      tasks: this.tasks,
      downstream: () => this.downstreams.latest(),
      identity: (meta) => identityOf(envelopeClientInfo(meta)),
      serverInfo: SERVER_INFO,
    });
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
    const result = await this.upstreams.reconcile(servers);
    for (const name of result.removed)
      for (const [tool, server] of this.known) if (server === name) this.known.delete(tool);
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
    return this.built?.toolsByName.get(name)?.definition.inputSchema;
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
    clearTimeout(this.refreshTimer);
    this.inputs.closeAll();
    await this.upstreams.close();
    await this.offered?.flush();
  }

  /** An endpoint over every tool (no view) or a profile's: a router that sees only its tools. */
  private endpoint(view: ProfileView | undefined): Endpoint {
    const deferral = new Deferral(
      this.options.deferThreshold ?? Number.POSITIVE_INFINITY,
      (identity) => this.downstreams.listChanged(['tools'], identity),
      this.options.shareRevealed,
    );
    const catalog = async () => (view ? view.of(await this.catalog()) : this.catalog());
    const router = new ToolRouter({
      tasks: this.tasks,
      catalog,
      built: () => (view && this.built ? view.of(this.built) : this.built),
      upstreams: this.upstreams,
      downstreams: this.downstreams,
      inputs: this.inputs,
      prefix: this.prefix,
      known: this.known,
      toolSearch: (catalog, args, identity) =>
        deferral.toolSearch(catalog, args, identity ?? identityOf(undefined)),
      capResult: (result) => capResult(result, this.options.maxResultTokens ?? 25_000, this.results),
      events: this.calls,
      ...(view ? { admits: view.admits, profile: view.name } : {}),
    });
    const endpoint: Endpoint = { view, catalog, deferral, router };
    this.endpoints.set(view?.name ?? '', endpoint);
    return endpoint;
  }

  private async build(): Promise<Catalog> {
    const pins = this.pins;
    const mode = this.options.pin ?? 'warn';
    const catalog = await buildCatalog(this.upstreams.sources(), {
      prefix: this.prefix,
      ...(pins
        ? {
            pins: {
              store: pins,
              mode,
              exempt: new Set(this.options.unpinned ?? []),
              onChanged: (server, tool) => {
                this.once(
                  `pin:${server}:${tool}`,
                  `tool "${tool}" of server "${server}" changed its description or schema since it was pinned` +
                    (mode === 'strict'
                      ? `; hidden until \`mcpkit trust ${server}\``
                      : `; run \`mcpkit trust ${server}\` to accept it`),
                );
              },
            },
          }
        : {}),
    });
    await pins?.save().catch((error: Error) => this.log(`cannot save pins: ${error.message}`));
    if (this.serving)
      for (const collision of catalog.collisions)
        this.once(`clash:${collision}`, `${collision}; the first one is served`);
    for (const tool of catalog.tools) this.known.set(tool.name, tool.server);
    if (this.options.toolIndexFile) {
      await writeFileAtomic(this.options.toolIndexFile, toolIndexMarkdown(catalog.tools)).catch(
        (error: Error) => this.log(error.message),
      );
    }
    return catalog;
  }

  private once(key: string, message: string): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.log(message);
  }

  /** Drops the catalog; shortly after, rebuilds it and tells clients which lists changed. */
  private invalidate(lists: Iterable<ListKind>): void {
    this.current = undefined;
    this.built = undefined;
    this.advertised = undefined;
    for (const list of lists) this.pendingLists.add(list);
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      const changed = this.pendingLists;
      this.pendingLists = new Set();
      this.catalog().then(
        () => {
          this.downstreams.listChanged(changed);
          for (const list of changed) this.events.publish({ kind: `${list}_list_changed` });
        },
        (error: Error) => this.log(`cannot list the upstreams' tools: ${error.message}`),
      );
    }, 20);
    this.refreshTimer.unref();
  }

  private createServer(era: ProtocolEra, endpoint: Endpoint): Server {
    // What the instance advertises depends only on which upstreams are ready: worked out once per catalog
    // (stateless HTTP builds an instance per request).
    this.advertised ??= advertised(this.upstreams.sources(), this.prefix);
    const { instructions } = this.advertised;
    // A 2025 client may call any tool as a task (the 2026-07-28 revision moved tasks to an extension).
    const capabilities =
      era === 'legacy'
        ? { ...this.advertised.capabilities, tasks: OFFERED_TASKS }
        : this.advertised.capabilities;
    const server = new Server(SERVER_INFO, { capabilities, ...(instructions ? { instructions } : {}) });
    const downstream = this.downstreams.track(server, era, ({ identity }) => {
      if (identity !== undefined) endpoint.deferral.forget(identity);
    });
    const view = endpoint.view;
    endpoint.host ??= {
      catalog: endpoint.catalog,
      listedTools: (catalog, identity) => endpoint.deferral.listed(catalog, identity),
      router: endpoint.router,
      statusJson: () =>
        JSON.stringify(
          { ...(view ? { profile: view.name } : {}), servers: this.status(), clients: this.downstreams.size },
          null,
          2,
        ),
      upstreams: this.upstreams,
      downstreams: this.downstreams,
      tasks: this.offered,
      results: this.results,
    };
    if (this.calls.observesRequests) this.calls.observeRequests(server, era);
    installHandlers(server, downstream, capabilities, endpoint.host);
    return server;
  }
}

function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}
