import { join } from 'node:path';
import {
  type CallToolResult,
  type McpServerFactory,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerCapabilities,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import type { ListKind, RuntimeServerConfig } from '../client/index.js';
import { userConfigDir } from '../config/index.js';
import { isMcpkitError, McpkitError } from '../errors/index.js';
import { writeFileAtomic } from '../internal/text-file.js';
import type { FrameIntercept } from '../serve/index.js';
import { buildCatalog, type Catalog, type PrefixMode } from './catalog.js';
import { type Downstream, Downstreams } from './downstream.js';
import { toolCallFastPath } from './fast-path.js';
import { type PinMode, PinStore } from './pins.js';
import { type HandlerHost, installHandlers } from './proxy-handlers.js';
import { asCallToolResult, relayToolCall, unavailable } from './relayed.js';
import {
  CALL_TOOL,
  CALL_TOOL_DEFINITION,
  TOOL_SEARCH,
  TOOL_SEARCH_DEFINITION,
  ToolSearch,
  toolIndexMarkdown,
  toolSearchResult,
} from './tool-search.js';
import { type UpstreamStatus, Upstreams, type UpstreamsOptions } from './upstreams.js';

/** Options for {@link Gateway.create}: the upstream settings of {@link UpstreamsOptions}, and these. */
export interface GatewayOptions extends Omit<UpstreamsOptions, 'handlers' | 'log'> {
  /** `server` (default): tools and prompts are `<server>__<name>`; `none`: names kept (must not clash). */
  prefix?: PrefixMode;
  /** More tools than this and only `tool_search` + `call_tool` are listed. Default 15. */
  deferThreshold?: number;
  /** Tool pinning: `warn` (default) logs a changed definition, `strict` hides the tool, `off` skips it. */
  pin?: PinMode;
  /** Where pins are kept; default `<user config dir>/pins.json`. */
  pinFile?: string;
  /** Keep a Markdown index of every tool in this file. */
  toolIndexFile?: string;
  /** Diagnostics (default: stderr, prefixed `mcpkit gateway:`). */
  log?: (message: string) => void;
}

const SERVER_INFO = { name: 'mcpkit-gateway', version: '1' };

/** Tools tool_search revealed stay listed (most recent first) up to this many, to respect client caps. */
const REVEALED_MAX = 50;

/**
 * Many MCP servers behind one: a {@link McpServerFactory} to serve (stdio or HTTP, both protocol
 * generations) over a supervised set of upstreams.
 *
 * @example
 * const gateway = await Gateway.create({ servers: effectiveServers(await loadConfig()) });
 * serveOverStdio(gateway.factory, { onClose: () => gateway.close() });
 */
export class Gateway {
  readonly factory: McpServerFactory;
  private readonly downstreams = new Downstreams();
  private upstreams!: Upstreams;
  private pins?: PinStore;
  private current: Promise<Catalog> | undefined;
  /** The catalog `current` resolved to, while it is current (the fast path reads it synchronously). */
  private built: Catalog | undefined;
  private search: { catalog: Catalog; index: ToolSearch } | undefined;
  /** Exposed tool names seen before, with their server: a call to one whose server is down says so. */
  private readonly known = new Map<string, string>();
  private readonly revealed = new Set<string>();
  private readonly reported = new Set<string>();
  private pendingLists = new Set<ListKind>();
  private refreshTimer: NodeJS.Timeout | undefined;
  private readonly log: (message: string) => void;
  private readonly prefix: PrefixMode;
  private readonly threshold: number;

  private host: HandlerHost | undefined;
  private advertised: { capabilities: ServerCapabilities; instructions: string | undefined } | undefined;

  private constructor(private readonly options: GatewayOptions) {
    this.log = options.log ?? ((message) => process.stderr.write(`mcpkit gateway: ${message}\n`));
    this.prefix = options.prefix ?? 'server';
    this.threshold = options.deferThreshold ?? 15;
    this.factory = (ctx) => this.createServer(ctx.era);
  }

  /** Starts the upstreams (failures are logged and retried) and builds the first catalog. */
  static async create(options: GatewayOptions): Promise<Gateway> {
    const gateway = new Gateway(options);
    const mode = options.pin ?? 'warn';
    if (mode !== 'off') {
      const file = options.pinFile ?? join(userConfigDir(options.env ?? process.env), 'pins.json');
      gateway.pins = await new PinStore(file).load();
    }
    gateway.upstreams = await Upstreams.start({
      servers: options.servers,
      handlers: gateway.downstreams.handlers(),
      log: gateway.log,
      ...pick(options, [
        'env',
        'startupTimeoutMs',
        'requestTimeoutMs',
        'restartDelayMs',
        'restartMaxDelayMs',
        'readyWaitMs',
      ]),
    });
    gateway.upstreams.on('changed', ({ lists }) => gateway.invalidate(lists));
    gateway.upstreams.runtime.on('resource_updated', ({ uri }) => gateway.downstreams.resourceUpdated(uri));
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
   * `intercept`): plain tool calls are relayed frame to frame, without the SDK's schema passes.
   */
  intercept(): FrameIntercept {
    return toolCallFastPath({
      builtCatalog: () => this.built,
      readyConnection: (server) => {
        const connection = this.upstreams.connection(server);
        return connection?.status === 'ready' ? connection : undefined;
      },
      downstream: () => this.downstreams.latest(),
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

  /** Re-reads the pin file (after `mcpkit trust`), so trusted tools reappear. */
  async reloadPins(): Promise<void> {
    if (!this.pins) return;
    await this.pins.load();
    this.invalidate(['tools']);
  }

  async close(): Promise<void> {
    clearTimeout(this.refreshTimer);
    await this.upstreams.close();
  }

  private async build(): Promise<Catalog> {
    const pins = this.pins;
    const catalog = await buildCatalog(this.upstreams.sources(), {
      prefix: this.prefix,
      ...(pins
        ? {
            pins: {
              store: pins,
              mode: this.options.pin ?? 'warn',
              onChanged: (server, tool) => {
                this.once(
                  `pin:${server}:${tool}`,
                  `tool "${tool}" of server "${server}" changed its description or schema since it was pinned` +
                    (this.options.pin === 'strict'
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
    this.search = undefined;
    this.advertised = undefined;
    for (const list of lists) this.pendingLists.add(list);
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      const changed = this.pendingLists;
      this.pendingLists = new Set();
      this.catalog().then(
        () => this.downstreams.listChanged(changed),
        (error: Error) => this.log(`cannot list the upstreams' tools: ${error.message}`),
      );
    }, 20);
    this.refreshTimer.unref();
  }

  private deferred(catalog: Catalog): boolean {
    return catalog.tools.length > this.threshold;
  }

  /** What tools/list shows: everything, or (deferred) the two meta tools plus always-loaded and revealed ones. */
  private listedTools(catalog: Catalog): Tool[] {
    if (!this.deferred(catalog)) return catalog.tools.map((t) => t.definition);
    const shown = catalog.tools.filter((t) => t.alwaysLoad || this.revealed.has(t.name));
    return [TOOL_SEARCH_DEFINITION, CALL_TOOL_DEFINITION, ...shown.map((t) => t.definition)];
  }

  private capabilities(): ServerCapabilities {
    const offered = this.upstreams.sources().map((s) => s.connection.capabilities ?? {});
    return {
      tools: { listChanged: true },
      resources: {
        listChanged: true,
        ...(offered.some((c) => c.resources?.subscribe) ? { subscribe: true } : {}),
      },
      logging: {},
      ...(offered.some((c) => c.prompts) ? { prompts: { listChanged: true } } : {}),
      ...(offered.some((c) => c.completions) ? { completions: {} } : {}),
    };
  }

  private instructions(): string | undefined {
    const sources = this.upstreams.sources();
    const own = sources.filter((s) => s.connection.instructions).map((s) => s.connection);
    // One upstream proxied transparently keeps its own words.
    if (this.prefix === 'none' && sources.length === 1) return own[0]?.instructions;
    const lines = [
      `This MCP gateway serves the tools of ${sources.length} servers (${sources.map((s) => s.connection.id).join(', ') || 'none yet'}).` +
        (this.prefix === 'server' ? ' Tool and prompt names start with the server name and "__".' : ''),
      `When only ${TOOL_SEARCH} and ${CALL_TOOL} are listed, find tools with ${TOOL_SEARCH} and call them with ${CALL_TOOL}.`,
    ];
    for (const connection of own) lines.push('', `## ${connection.id}`, connection.instructions as string);
    return lines.join('\n');
  }

  private createServer(era: 'legacy' | 'modern'): Server {
    // What the instance advertises depends only on which upstreams are ready: worked out once per catalog
    // (stateless HTTP builds an instance per request).
    this.advertised ??= { capabilities: this.capabilities(), instructions: this.instructions() };
    const { capabilities, instructions } = this.advertised;
    const server = new Server(SERVER_INFO, { capabilities, ...(instructions ? { instructions } : {}) });
    const downstream = this.downstreams.track(server, era);

    this.host ??= {
      catalog: () => this.catalog(),
      listedTools: (catalog) => this.listedTools(catalog),
      callTool: (name, args, ctx, downstream) => this.callTool(name, args, ctx, downstream),
      statusJson: () => JSON.stringify({ servers: this.status(), clients: this.downstreams.size }, null, 2),
      upstreams: this.upstreams,
      downstreams: this.downstreams,
    };
    installHandlers(server, downstream, capabilities, this.host);
    return server;
  }

  private async callTool(
    name: string,
    args: Record<string, unknown>,
    ctx: ServerContext,
    downstream: Downstream,
  ): Promise<CallToolResult> {
    const catalog = await this.catalog();
    let target = catalog.toolsByName.get(name);
    let given = args;
    if (!target && name === TOOL_SEARCH) return this.toolSearch(catalog, args);
    if (!target && name === CALL_TOOL) {
      if (typeof args.name !== 'string')
        return failure(`${CALL_TOOL}: "name" must be the name of a tool (as ${TOOL_SEARCH} returned it)`);
      if (
        args.arguments !== undefined &&
        (typeof args.arguments !== 'object' || args.arguments === null || Array.isArray(args.arguments))
      )
        return failure(`${CALL_TOOL}: "arguments" must be an object`);
      name = args.name;
      given = (args.arguments as Record<string, unknown> | undefined) ?? {};
      target = catalog.toolsByName.get(name);
    }
    if (!target) {
      const hidden = catalog.hidden.get(name);
      if (hidden) return failure(`Tool ${name} is hidden: ${hidden.reason}`);
      const server = this.known.get(name);
      const down = server === undefined ? undefined : this.upstreams.unavailable(server);
      if (down) return unavailable(name, down);
      // A single upstream proxied with its own names answers for unknown tools itself, as it would directly.
      const only = this.prefix === 'none' ? this.upstreams.onlyWith('tools') : undefined;
      if (only === undefined)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
      target = {
        name,
        server: only,
        tool: name,
        definition: { name, inputSchema: { type: 'object' } },
        alwaysLoad: false,
      };
    }
    const connection = this.upstreams.connection(target.server);
    const down = this.upstreams.unavailable(target.server);
    if (!connection || down) return unavailable(name, down ?? `server "${target.server}" is not configured`);
    const token = (ctx.mcpReq._meta as { progressToken?: string | number } | undefined)?.progressToken;
    const end = this.downstreams.begin(target.server, downstream, ctx);
    // Progress goes out before the result: the client drops progress that comes after it.
    const sent: Promise<void>[] = [];
    try {
      // Without progress, the call goes through the raw relay: the upstream's result as it is, no second
      // schema pass on the client side.
      const relayed =
        token === undefined
          ? await relayToolCall(connection, target.tool, given, ctx.mcpReq.signal)
          : undefined;
      if (relayed?.kind === 'result') return asCallToolResult(relayed.result);
      if (relayed?.kind === 'error') {
        const { code, message, data } = relayed.error;
        // The upstream died during the call: the same answer as a call that found it down.
        if (connection.status !== 'ready') return unavailable(name, message);
        throw new ProtocolError(code, message, data);
      }
      const result = await connection.callTool(target.tool, given, {
        signal: ctx.mcpReq.signal,
        ...(token !== undefined
          ? {
              onProgress: (update) => {
                sent.push(
                  ctx.mcpReq
                    .notify({ method: 'notifications/progress', params: { progressToken: token, ...update } })
                    .catch(() => undefined),
                );
              },
            }
          : {}),
      });
      if (sent.length > 0) await Promise.all(sent);
      return result;
    } catch (error) {
      if (error instanceof ProtocolError) throw new ProtocolError(error.code, error.message, error.data);
      if (isMcpkitError(error)) return unavailable(name, error.message);
      throw error;
    } finally {
      end();
    }
  }

  private toolSearch(catalog: Catalog, args: Record<string, unknown>): CallToolResult {
    if (typeof args.query !== 'string' || args.query.trim() === '')
      return failure(`${TOOL_SEARCH}: "query" must be a non-empty string`);
    const limit =
      typeof args.limit === 'number' && args.limit >= 1 ? Math.min(Math.floor(args.limit), 50) : 5;
    if (this.search?.catalog !== catalog) this.search = { catalog, index: new ToolSearch(catalog.tools) };
    const matches = this.search.index.search(args.query, limit);
    if (this.deferred(catalog)) this.reveal(matches.map((m) => m.name));
    return toolSearchResult(args.query, matches, catalog.tools.length);
  }

  /** Adds found tools to tools/list (most recent kept), with a list_changed when the list grew. */
  private reveal(names: string[]): void {
    let grew = false;
    for (const name of names) {
      if (!this.revealed.delete(name)) grew = true;
      this.revealed.add(name);
    }
    while (this.revealed.size > REVEALED_MAX)
      this.revealed.delete(this.revealed.values().next().value as string);
    if (grew) this.downstreams.listChanged(['tools']);
  }
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}
