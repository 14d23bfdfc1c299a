import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  Client,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptResult,
  type Implementation,
  type LoggingLevel,
  PROTOCOL_VERSION_META_KEY,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  type ServerCapabilities,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { expandServerEntry, isStdioServer, type ServerEntry } from '../config/index.js';
import { isMcpkitError, McpkitError } from '../errors/index.js';
import type { FailureCategory, ListKind, RuntimeEventMap } from './events.js';
import { capabilitiesFor, type RuntimeHandlers } from './handlers.js';
import { ProgressRouter, type ProgressUpdate } from './progress-router.js';
import { RawRelay, type RelayResponse } from './raw-relay.js';
import { isNetworkError, isSessionLost, shouldFallBackToSse } from './remote-errors.js';
import { SpawnError, StdioTransport } from './stdio-transport.js';
import { filterTools, isToolAllowed } from './tool-registry.js';
import { openTransport } from './transports.js';

/** Where a server is in its life. */
export type ServerStatus = 'starting' | 'ready' | 'failed' | 'stopped';

/** Options for one tool call. */
export interface CallToolOptions {
  /** Abort to cancel: the server gets `notifications/cancelled`. */
  signal?: AbortSignal;
  /** Every progress notification of this call, including one that arrives with the response. */
  onProgress?: (update: ProgressUpdate) => void;
  timeoutMs?: number;
}

/** What a connection needs from its runtime. */
export interface ConnectionContext {
  clientInfo: Implementation;
  handlers: RuntimeHandlers;
  env: Readonly<Record<string, string | undefined>>;
  requestTimeoutMs: number;
  emit<K extends keyof RuntimeEventMap>(name: K, ...args: RuntimeEventMap[K]): void;
  /** Whether anyone listens to an event (so hot paths can skip building it). */
  listening(name: keyof RuntimeEventMap): boolean;
}

/** A server failed to start: the category says how. */
export class ServerStartError extends McpkitError {
  constructor(
    readonly server: string,
    readonly category: FailureCategory,
    message: string,
    cause?: unknown,
  ) {
    super('SERVER_FAILED', `server "${server}" failed to start (${category}): ${message}`, { server, cause });
  }
}

let tokenCounter = 0;

/**
 * One server: its transport, the SDK client on it, cached lists and in-flight calls. Created by the
 * Runtime; the public surface is what {@link ServerHandle} exposes.
 */
export class ServerConnection {
  status: ServerStatus = 'starting';
  failure?: { category: FailureCategory; message: string };
  private client?: Client;
  private transport?: Transport;
  private readonly progress = new ProgressRouter();
  private relay: RawRelay | undefined;
  private envelope: Record<string, unknown> | undefined;
  private readonly inflight = new Set<(error: Error) => void>();
  private readonly lists: { tools?: Tool[]; resources?: Resource[]; prompts?: Prompt[] } = {};
  /** The entry with `${VAR}`s expanded, and whether the legacy SSE transport is in use. */
  private connected?: { entry: ServerEntry; sse: boolean; timeoutMs: number };
  private reinitializing: Promise<void> | undefined;
  /** Counts sessions: a request that fails after a newer one started is retried on it. */
  private generation = 0;

  constructor(
    readonly id: string,
    readonly entry: ServerEntry,
    private readonly ctx: ConnectionContext,
    /** Set for an in-process server: the transport of each connect comes from here. */
    private readonly transportFactory?: () => Transport,
  ) {}

  get serverInfo(): Implementation | undefined {
    return this.client?.getServerVersion();
  }

  get capabilities(): ServerCapabilities | undefined {
    return this.client?.getServerCapabilities();
  }

  get protocolVersion(): string | undefined {
    return this.client?.getNegotiatedProtocolVersion();
  }

  get instructions(): string | undefined {
    return this.client?.getInstructions();
  }

  /** The tools last listed (refreshed on list_changed); undefined before the first listing. */
  get cachedTools(): readonly Tool[] | undefined {
    return this.lists.tools;
  }

  /** Connects within `timeoutMs`; on failure the status is `failed` and a ServerStartError is thrown. */
  async start(timeoutMs: number): Promise<void> {
    let entry: ServerEntry;
    try {
      entry = expandServerEntry(this.id, this.entry, this.ctx.env);
    } catch (error) {
      throw this.fail('config', isMcpkitError(error) ? error.message : String(error), error);
    }
    this.connected = { entry, sse: false, timeoutMs };
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    try {
      // The SDK's probe keeps its own timers; the deadline wins regardless.
      const expired = new Promise<never>((_, reject) =>
        deadline.signal.addEventListener('abort', () => reject(new Error('startup timeout'))),
      );
      const connecting = this.connectWithFallbacks(entry, deadline.signal);
      connecting.catch(() => undefined); // may settle after the deadline won
      await Promise.race([connecting, expired]);
    } catch (error) {
      await this.transport?.close().catch(() => undefined);
      if (deadline.signal.aborted) throw this.fail('timeout', `no handshake within ${timeoutMs} ms`, error);
      if (error instanceof SpawnError) throw this.fail('spawn', error.message, error);
      throw this.fail('handshake', this.describe(error), error);
    } finally {
      clearTimeout(timer);
    }
    if (this.status !== 'starting') return; // closed while starting
    this.status = 'ready';
    this.ctx.emit('server_started', {
      server: this.id,
      protocolVersion: this.protocolVersion,
      serverName: this.serverInfo?.name,
    });
  }

  private async connectWithFallbacks(entry: ServerEntry, signal: AbortSignal): Promise<void> {
    if (this.transportFactory) return this.connectOnce(entry, signal, false, false);
    if (isStdioServer(entry)) {
      try {
        await this.connectOnce(entry, signal, false, false);
      } catch (error) {
        // Some 2025-era servers exit when a request comes before `initialize`. Only then is a second
        // process started, going straight to `initialize`.
        if (error instanceof SpawnError || signal.aborted || !(this.transport as StdioTransport).exited)
          throw error;
        await this.connectOnce(entry, signal, false, true);
      }
      return;
    }
    if (entry.type === 'sse') return this.connectOnce(entry, signal, true, false);
    await this.retryNetwork(signal, async () => {
      try {
        await this.connectOnce(entry, signal, false, false);
      } catch (error) {
        if (!shouldFallBackToSse(error)) throw error;
        await this.connectOnce(entry, signal, true, false);
      }
    });
  }

  /** Retries a remote connect on network errors: 1 s, doubling, 5 attempts, within the deadline. */
  private async retryNetwork(signal: AbortSignal, connect: () => Promise<void>): Promise<void> {
    for (let attempt = 1, delay = 1000; ; attempt++, delay *= 2) {
      try {
        return await connect();
      } catch (error) {
        if (!isNetworkError(error) || attempt >= 5 || signal.aborted) throw error;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        if (signal.aborted) throw error;
      }
    }
  }

  private async connectOnce(entry: ServerEntry, signal: AbortSignal, sse: boolean, legacy: boolean) {
    if (this.client) this.client.onclose = () => undefined; // replacing it is not a failure
    await this.transport?.close().catch(() => undefined);
    if (this.connected) this.connected.sse = sse;
    const transport =
      this.transportFactory?.() ??
      openTransport(
        entry,
        {
          parentEnv: this.ctx.env,
          onStderrLine: (line) => this.ctx.emit('stderr', { server: this.id, line }),
        },
        sse,
      );
    this.transport = transport;
    const client = this.createClient();
    this.client = client;
    await client.connect(transport, {
      signal,
      timeout: this.ctx.requestTimeoutMs,
      ...(legacy ? { prior: { kind: 'legacy' as const } } : {}),
    });
    this.progress.attach(transport);
    this.relay?.failAll('the connection was replaced');
    this.relay = undefined;
    this.envelope = undefined;
    if (transport instanceof StdioTransport) {
      this.relay = new RawRelay(transport);
      this.relay.attach();
    }
    client.onclose = () => this.onClosed();
  }

  private createClient(): Client {
    const refresh = (list: ListKind) => ({
      autoRefresh: false,
      debounceMs: 0,
      onChanged: () => {
        delete this.lists[list];
        this.ctx.emit('list_changed', { server: this.id, list });
      },
    });
    const client = new Client(this.ctx.clientInfo, {
      capabilities: capabilitiesFor(this.ctx.handlers),
      versionNegotiation: { mode: 'auto' },
      listChanged: { tools: refresh('tools'), resources: refresh('resources'), prompts: refresh('prompts') },
    });
    const { sampling, elicitation, roots } = this.ctx.handlers;
    const server = { server: this.id };
    if (sampling) client.setRequestHandler('sampling/createMessage', (req) => sampling(req.params, server));
    if (elicitation) client.setRequestHandler('elicitation/create', (req) => elicitation(req.params, server));
    if (roots) client.setRequestHandler('roots/list', async () => ({ roots: await roots(server) }));
    client.setNotificationHandler('notifications/message', (note) => {
      const { level, logger, data } = note.params;
      this.ctx.emit('server_log', {
        server: this.id,
        level,
        data,
        ...(logger === undefined ? {} : { logger }),
      });
    });
    client.setNotificationHandler('notifications/resources/updated', (note) => {
      this.ctx.emit('resource_updated', { server: this.id, uri: note.params.uri });
    });
    // Protocol errors from a misbehaving server must not crash the host; calls report their own failures.
    client.onerror = () => undefined;
    return client;
  }

  private onClosed(): void {
    if (this.status !== 'ready') return;
    const stderr = this.transport instanceof StdioTransport ? this.transport.recentStderr.slice(-3) : [];
    const detail = stderr.length > 0 ? `; last stderr: ${stderr.join(' | ')}` : '';
    const message = `connection closed${detail}`;
    this.status = 'failed';
    this.failure = { category: 'transport_closed', message };
    const error = new McpkitError('SERVER_UNAVAILABLE', `server "${this.id}" ${message}`, {
      server: this.id,
    });
    for (const reject of this.inflight) reject(error);
    this.inflight.clear();
    this.relay?.failAll(error.message);
    this.ctx.emit('server_failed', { server: this.id, category: 'transport_closed', message });
  }

  private fail(category: FailureCategory, message: string, cause: unknown): ServerStartError {
    this.status = 'failed';
    this.failure = { category, message };
    this.ctx.emit('server_failed', { server: this.id, category, message });
    return new ServerStartError(this.id, category, message, cause);
  }

  private describe(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    const stderr = this.transport instanceof StdioTransport ? this.transport.recentStderr.slice(-3) : [];
    return stderr.length > 0 ? `${message}; last stderr: ${stderr.join(' | ')}` : message;
  }

  /**
   * Runs a request, failing at once if the server dies meanwhile. A remote server that lost our 2025-era
   * session (404, as the spec says, or the 400 "no valid session" of servers built on older SDK examples)
   * gets a fresh `initialize` and the request is sent once more.
   */
  private run<T>(request: (client: Client) => Promise<T>): Promise<T> {
    const first = this.runOnce(request);
    if (isStdioServer(this.entry) || this.transportFactory) return first;
    const generation = this.generation;
    return first.catch(async (error: unknown) => {
      // Either this request found the session gone, or another one did and replaced the connection
      // under it: both get one more try on the new session.
      const replaced = generation !== this.generation || this.reinitializing !== undefined;
      if (!replaced && !(this.status === 'ready' && isSessionLost(error))) throw error;
      await (this.reinitializing ?? (replaced ? undefined : this.reinitialize()));
      return this.runOnce(request);
    });
  }

  private runOnce<T>(request: (client: Client) => Promise<T>): Promise<T> {
    const client = this.ready();
    return new Promise<T>((resolve, reject) => {
      this.inflight.add(reject);
      request(client).then(
        (value) => {
          this.inflight.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          this.inflight.delete(reject);
          reject(error);
        },
      );
    });
  }

  /** Starts a new session on a fresh transport; concurrent callers share one attempt. */
  private reinitialize(): Promise<void> {
    const connected = this.connected;
    if (!connected) return Promise.reject(new Error('not connected'));
    this.reinitializing ??= (async () => {
      const signal = AbortSignal.timeout(connected.timeoutMs);
      try {
        await this.connectOnce(connected.entry, signal, connected.sse, false);
        this.generation++;
        delete this.lists.tools;
        delete this.lists.resources;
        delete this.lists.prompts;
      } finally {
        this.reinitializing = undefined;
      }
    })();
    return this.reinitializing;
  }

  private ready(): Client {
    if (this.status === 'ready' && this.client) return this.client;
    const why = this.failure ? `: ${this.failure.message}` : '';
    throw new McpkitError('SERVER_UNAVAILABLE', `server "${this.id}" is ${this.status}${why}`, {
      server: this.id,
    });
  }

  private has(capability: keyof ServerCapabilities): boolean {
    return this.ready().getServerCapabilities()?.[capability] !== undefined;
  }

  /** Every tool, all pages. */
  async listTools(): Promise<Tool[]> {
    if (!this.has('tools')) return [];
    const tools = await this.pages(async (client, cursor) => {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      return [page.tools, page.nextCursor];
    });
    const allowed = filterTools(tools, this.entry);
    this.lists.tools = allowed;
    return allowed;
  }

  async listResources(): Promise<Resource[]> {
    if (!this.has('resources')) return [];
    return this.pages(async (client, cursor) => {
      const page = await client.listResources(cursor ? { cursor } : undefined);
      return [page.resources, page.nextCursor];
    });
  }

  async listResourceTemplates(): Promise<ResourceTemplate[]> {
    if (!this.has('resources')) return [];
    return this.pages(async (client, cursor) => {
      const page = await client.listResourceTemplates(cursor ? { cursor } : undefined);
      return [page.resourceTemplates, page.nextCursor];
    });
  }

  async listPrompts(): Promise<Prompt[]> {
    if (!this.has('prompts')) return [];
    return this.pages(async (client, cursor) => {
      const page = await client.listPrompts(cursor ? { cursor } : undefined);
      return [page.prompts, page.nextCursor];
    });
  }

  private async pages<T>(fetchPage: (client: Client, cursor?: string) => Promise<[T[], string | undefined]>) {
    const all: T[] = [];
    let cursor: string | undefined;
    do {
      const [items, next] = await this.run((client) => fetchPage(client, cursor));
      all.push(...items);
      cursor = next;
    } while (cursor);
    return all;
  }

  /** Calls a tool. A tool failure is a result with `isError`; protocol failures throw. */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: CallToolOptions = {},
  ): Promise<CallToolResult> {
    this.ready();
    if (!isToolAllowed(name, this.entry)) {
      throw new McpkitError(
        'TOOL_NOT_ALLOWED',
        `tool "${name}" of server "${this.id}" is excluded by its includeTools/excludeTools`,
        { server: this.id },
      );
    }
    // The hot path: events and progress cost only when someone listens.
    const ctx = this.ctx;
    const timed = ctx.listening('tool_invoked') || ctx.listening('tool_completed');
    if (timed) ctx.emit('tool_invoked', { server: this.id, tool: name });
    const started = timed ? performance.now() : 0;
    const onProgress = options.onProgress;
    const token = onProgress || ctx.listening('progress') ? `mcpkit-${++tokenCounter}` : undefined;
    if (token !== undefined) {
      this.progress.register(token, (update) => {
        ctx.emit('progress', { server: this.id, ...update });
        onProgress?.(update);
      });
    }
    let isError = true;
    try {
      const result = (await this.run((client) =>
        client.callTool(
          token === undefined
            ? { name, arguments: args }
            : { name, arguments: args, _meta: { progressToken: token } },
          {
            timeout: options.timeoutMs ?? this.entry.timeout ?? ctx.requestTimeoutMs,
            ...(options.signal ? { signal: options.signal } : {}),
          },
        ),
      )) as CallToolResult;
      isError = result.isError === true;
      return result;
    } finally {
      if (token !== undefined) this.progress.unregister(token);
      if (timed)
        ctx.emit('tool_completed', {
          server: this.id,
          tool: name,
          durationMs: performance.now() - started,
          isError,
        });
    }
  }

  /**
   * For proxies: sends a request as it is, without the SDK client; `onResponse` gets the server's result or
   * error as sent (timeouts and a dying server come as errors). Returns the request id for
   * {@link relayCancel}, or undefined when this connection cannot
   * relay (not ready, or not stdio): use the typed methods then. On the 2026-07-28 era the request gets
   * the per-request `_meta` envelope the SDK client would add.
   */
  relayRequest(
    method: string,
    params: Record<string, unknown>,
    onResponse: (response: RelayResponse) => void,
  ): string | undefined {
    if (this.status !== 'ready' || !this.relay) return undefined;
    const envelope = this.relayEnvelope();
    const sent = envelope
      ? { ...params, _meta: { ...(params._meta as object | undefined), ...envelope } }
      : params;
    return this.relay.request(method, sent, this.entry.timeout ?? this.ctx.requestTimeoutMs, onResponse);
  }

  /** Cancels a relayed request (the server gets `notifications/cancelled`). */
  relayCancel(id: string, reason?: string): void {
    this.relay?.cancel(id, reason, this.relayEnvelope());
  }

  private relayEnvelope(): Record<string, unknown> | undefined {
    if (this.client?.getProtocolEra() !== 'modern') return undefined;
    this.envelope ??= {
      [PROTOCOL_VERSION_META_KEY]: this.protocolVersion,
      [CLIENT_INFO_META_KEY]: this.ctx.clientInfo,
      [CLIENT_CAPABILITIES_META_KEY]: capabilitiesFor(this.ctx.handlers),
    };
    return this.envelope;
  }

  async readResource(uri: string, options: { signal?: AbortSignal } = {}): Promise<ReadResourceResult> {
    const result = await this.run((client) => client.readResource({ uri }, this.requestOptions(options)));
    this.ctx.emit('resource_read', { server: this.id, uri });
    return result;
  }

  /** Asks for `resource_updated` events when the resource changes. */
  async subscribeResource(uri: string): Promise<void> {
    await this.run((client) => client.subscribeResource({ uri }, this.requestOptions({})));
  }

  async unsubscribeResource(uri: string): Promise<void> {
    await this.run((client) => client.unsubscribeResource({ uri }, this.requestOptions({})));
  }

  async getPrompt(name: string, args: Record<string, string> = {}, options: { signal?: AbortSignal } = {}) {
    const result: GetPromptResult = await this.run((client) =>
      client.getPrompt({ name, arguments: args }, this.requestOptions(options)),
    );
    this.ctx.emit('prompt_rendered', { server: this.id, prompt: name });
    return result;
  }

  async complete(params: CompleteRequest['params']): Promise<CompleteResult> {
    return this.run((client) => client.complete(params, this.requestOptions({})));
  }

  /**
   * Round-trip time in milliseconds. 2026-07-28 has no `ping`; there a `server/discover` is the cheapest
   * request that proves the server answers.
   */
  async ping(): Promise<number> {
    const started = performance.now();
    await this.run((client) =>
      client.getProtocolEra() === 'modern'
        ? client.discover(this.requestOptions({}))
        : client.ping(this.requestOptions({})),
    );
    return performance.now() - started;
  }

  /** Tells the server the client's roots changed (it will ask for them again). */
  async notifyRootsChanged(): Promise<void> {
    if (this.status === 'ready') await this.client?.sendRootsListChanged();
  }

  async setLogLevel(level: LoggingLevel): Promise<void> {
    await this.run((client) => client.setLoggingLevel(level, this.requestOptions({})));
  }

  private requestOptions(options: { signal?: AbortSignal }) {
    return {
      timeout: this.entry.timeout ?? this.ctx.requestTimeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    };
  }

  /** Stops the server (the shutdown ladder for stdio). Idempotent. */
  async close(): Promise<void> {
    if (this.status === 'stopped') return;
    const wasLive = this.status === 'ready' || this.status === 'starting';
    this.status = 'stopped';
    const error = new McpkitError('SERVER_UNAVAILABLE', `server "${this.id}" was stopped`, {
      server: this.id,
    });
    for (const reject of this.inflight) reject(error);
    this.inflight.clear();
    this.relay?.failAll(error.message);
    await this.client?.close().catch(() => undefined);
    await this.transport?.close().catch(() => undefined);
    if (wasLive) this.ctx.emit('server_stopped', { server: this.id });
  }
}
