import { join } from 'node:path';
import {
  InMemoryServerEventBus,
  type McpServerFactory,
  type ProtocolEra,
  Server,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import type { ListKind, RuntimeServerConfig, TokenStore } from '../client/index.js';
import { userConfigDir } from '../config/index.js';
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
import { type PinBackend, type PinMode, PinStore } from './pins.js';
import { type HandlerHost, installHandlers } from './proxy-handlers.js';
import { ToolRouter } from './router.js';
import { OFFERED_TASKS } from './task-handlers.js';
import { TaskRoutes } from './task-routes.js';
import { GatewayTasks } from './task-store.js';
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
  /** Keep a Markdown index of every tool in this file. */
  toolIndexFile?: string;
  /** Diagnostics (default: stderr, prefixed `mcpkit gateway:`). */
  log?: (message: string) => void;
  /**
   * How long a 2026-07-28 client has to come back with the answers a 2025 upstream asked for mid-call
   * (an `input_required` round) before the gateway cancels that call; default 5 min.
   */
  inputRoundTimeoutMs?: number;
}

const SERVER_INFO = { name: 'mcpkit-gateway', version: PACKAGE_VERSION };

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
  private readonly downstreams = new Downstreams();
  /** 2025 upstreams' mid-call requests, put to 2026-07-28 clients as `input_required` rounds. */
  private readonly inputs: InputFlows;
  private upstreams!: Upstreams;
  private router!: ToolRouter;
  private tasks!: TaskRoutes;
  private offered!: GatewayTasks;
  private pins?: PinStore;
  private current: Promise<Catalog> | undefined;
  /** The catalog `current` resolved to, while it is current (the fast path reads it synchronously). */
  private built: Catalog | undefined;
  /** Exposed tool names seen before, with their server: a call to one whose server is down says so. */
  private readonly known = new Map<string, string>();
  private readonly reported = new Set<string>();
  private readonly deferral: Deferral;
  private pendingLists = new Set<ListKind>();
  private refreshTimer: NodeJS.Timeout | undefined;
  private readonly log: (message: string) => void;
  private readonly prefix: PrefixMode;
  private host: HandlerHost | undefined;
  private advertised: Advertised | undefined;

  private constructor(private readonly options: GatewayOptions) {
    this.log = options.log ?? ((message) => process.stderr.write(`mcpkit gateway: ${message}\n`));
    this.prefix = options.prefix ?? 'server';
    this.inputs = new InputFlows(
      options.inputRoundTimeoutMs === undefined ? {} : { roundTimeoutMs: options.inputRoundTimeoutMs },
    );
    this.deferral = new Deferral(
      options.deferThreshold ?? Number.POSITIVE_INFINITY,
      (identity) => this.downstreams.listChanged(['tools'], identity),
      options.shareRevealed,
    );
    this.factory = (ctx) => this.createServer(ctx.era);
  }

  /** Starts the upstreams (failures are logged and retried) and builds the first catalog. */
  static async create(options: GatewayOptions): Promise<Gateway> {
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
    gateway.router = new ToolRouter({
      tasks: gateway.tasks,
      catalog: () => gateway.catalog(),
      built: () => gateway.built,
      upstreams: gateway.upstreams,
      downstreams: gateway.downstreams,
      inputs: gateway.inputs,
      prefix: gateway.prefix,
      known: gateway.known,
      toolSearch: (catalog, args, identity) =>
        gateway.deferral.toolSearch(catalog, args, identity ?? identityOf(undefined)),
    });
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
    if (gateway.prefix === 'none' && catalog.collisions.length > 0) {
      await gateway.close();
      throw new McpkitError(
        'INVALID_ARGUMENT',
        `prefix "none" needs names that do not collide, but ${catalog.collisions.join('; ')}; use prefix "server"`,
      );
    }
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
    return toolCallFastPath({
      router: this.router,
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

  /** What tool_search on another replica revealed to a client (its list grows here too). */
  revealedElsewhere(identity: string, names: string[]): void {
    this.deferral.revealedElsewhere(identity, names);
  }

  /** Re-reads the pin file (after `mcpkit trust`), so trusted tools reappear. */
  async reloadPins(): Promise<void> {
    if (!this.pins) return;
    await this.pins.load();
    this.invalidate(['tools']);
  }

  /** Stops every upstream. */
  /**
   * The input schema of an exposed tool, as its upstream listed it (for the HTTP endpoint's `toolSchema`:
   * `Mcp-Param-*` headers are checked against it).
   */
  toolSchema(name: string): unknown {
    return this.built?.toolsByName.get(name)?.definition.inputSchema;
  }

  async close(): Promise<void> {
    clearTimeout(this.refreshTimer);
    this.inputs.closeAll();
    await this.upstreams.close();
    await this.offered?.flush();
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

  private createServer(era: ProtocolEra): Server {
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
      if (identity !== undefined) this.deferral.forget(identity);
    });
    this.host ??= {
      catalog: () => this.catalog(),
      listedTools: (catalog, identity) => this.deferral.listed(catalog, identity),
      router: this.router,
      statusJson: () => JSON.stringify({ servers: this.status(), clients: this.downstreams.size }, null, 2),
      upstreams: this.upstreams,
      downstreams: this.downstreams,
      tasks: this.offered,
    };
    installHandlers(server, downstream, capabilities, this.host);
    return server;
  }
}

function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}
