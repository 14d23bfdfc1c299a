import {
  type CallToolResult,
  type Client,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptResult,
  type Implementation,
  type LoggingLevel,
  type Prompt,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  type ServerCapabilities,
  type Tool,
} from '@modelcontextprotocol/client';
import { isStdioServer, type ServerEntry } from '../config/index.js';
import { McpkitError } from '../errors/index.js';
import type { ConnectionContext } from './connection-context.js';
import type { ProgressRouter, ProgressUpdate } from './progress-router.js';
import type {
  CallToolOptions,
  RequestOptions,
  ServerFailure,
  ServerHandle,
  ServerStatus,
} from './server-handle.js';
import { type ServerSkills, serverSkills } from './skills.js';
import { filterTools, isToolAllowed } from './tool-registry.js';
import { callToolAsTask, cancelTask, getTask, listTasks, requiresTask, type TaskInfo } from './tool-tasks.js';

/** The lists a connection keeps until the server says they changed. */
export interface ListCache {
  tools?: Tool[];
  /** The listing a 2026-07-28 HTTP call waits for (see `ServerRequests.toolHeadersKnown`), while it runs. */
  toolsListing?: Promise<unknown>;
}

/** What the typed requests need from their connection. */
export interface RequestChannel {
  readonly id: string;
  readonly entry: ServerEntry;
  readonly ctx: ConnectionContext;
  readonly status: ServerStatus;
  readonly failure: ServerFailure | undefined;
  readonly client: Client | undefined;
  readonly lists: ListCache;
  readonly progress: ProgressRouter;
  /** The client to send on; throws SERVER_UNAVAILABLE when the server cannot take requests. */
  ready(): Client;
  /** Runs a request (failing when the server dies, re-initializing a lost session). */
  run<T>(request: (client: Client) => Promise<T>): Promise<T>;
}

let tokenCounter = 0;

/** The typed request API of one server: the {@link ServerHandle} a Runtime hands out. */
export class ServerRequests implements ServerHandle {
  /** Resource subscriptions on a 2026-07-28 connection: one listen stream each. */
  private readonly listens = new Map<string, { client: Client; close(): Promise<void> }>();

  readonly skills: ServerSkills;

  constructor(private readonly channel: RequestChannel) {
    this.skills = serverSkills({
      get client() {
        return channel.client;
      },
      run: (request) => channel.run(request),
      timeoutMs: () => this.timeoutMs(),
    });
  }

  get id(): string {
    return this.channel.id;
  }
  get entry(): ServerEntry {
    return this.channel.entry;
  }
  get status(): ServerStatus {
    return this.channel.status;
  }
  get failure(): ServerFailure | undefined {
    return this.channel.failure;
  }
  get serverInfo(): Implementation | undefined {
    return this.channel.client?.getServerVersion();
  }
  get capabilities(): ServerCapabilities | undefined {
    return this.channel.client?.getServerCapabilities();
  }
  get protocolVersion(): string | undefined {
    return this.channel.client?.getNegotiatedProtocolVersion();
  }
  get instructions(): string | undefined {
    return this.channel.client?.getInstructions();
  }
  get cachedTools(): readonly Tool[] | undefined {
    return this.channel.lists.tools;
  }

  async listTools(): Promise<Tool[]> {
    if (!this.has('tools')) return [];
    const tools = await this.pages(async (client, cursor) => {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      return [page.tools, page.nextCursor];
    });
    const allowed = filterTools(tools, this.entry);
    this.channel.lists.tools = allowed;
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
    try {
      return await this.pages(async (client, cursor) => {
        const page = await client.listResourceTemplates(cursor ? { cursor } : undefined);
        return [page.resourceTemplates, page.nextCursor];
      });
    } catch (error) {
      // Many simple servers offer resources without templates and answer "method not found" here.
      if (error instanceof ProtocolError && error.code === ProtocolErrorCode.MethodNotFound) return [];
      throw error;
    }
  }

  async listPrompts(): Promise<Prompt[]> {
    if (!this.has('prompts')) return [];
    return this.pages(async (client, cursor) => {
      const page = await client.listPrompts(cursor ? { cursor } : undefined);
      return [page.prompts, page.nextCursor];
    });
  }

  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: CallToolOptions = {},
  ): Promise<CallToolResult> {
    this.channel.ready();
    if (!isToolAllowed(name, this.entry)) {
      throw new McpkitError(
        'TOOL_NOT_ALLOWED',
        `tool "${name}" of server "${this.id}" is excluded by its includeTools/excludeTools`,
        { server: this.id },
      );
    }
    await this.toolHeadersKnown();
    // The hot path: events and progress cost only when someone listens.
    const { ctx, progress } = this.channel;
    const timed = ctx.listening('tool_invoked') || ctx.listening('tool_completed');
    if (timed) ctx.emit('tool_invoked', { server: this.id, tool: name });
    const started = timed ? performance.now() : 0;
    const onProgress = options.onProgress;
    const token = onProgress || ctx.listening('progress') ? `mcpkit-${++tokenCounter}` : undefined;
    const deliver = (update: ProgressUpdate) => {
      ctx.emit('progress', { server: this.id, ...update });
      onProgress?.(update);
    };
    if (token !== undefined) progress.register(token, deliver);
    let isError = true;
    const timeoutMs = options.timeoutMs ?? this.entry.timeout ?? ctx.requestTimeoutMs;
    const asTask = () =>
      this.channel.run((client) =>
        callToolAsTask(client, name, args, {
          timeoutMs,
          signal: options.signal,
          // A task reports progress as its status changes.
          ...(token !== undefined ? { onProgress: deliver } : {}),
        }),
      );
    try {
      const listed = this.channel.lists.tools?.find((tool) => tool.name === name);
      let result = requiresTask(listed)
        ? await asTask()
        : ((await this.channel.run((client) =>
            client.callTool(
              token === undefined
                ? { name, arguments: args }
                : { name, arguments: args, _meta: { progressToken: token } },
              { timeout: timeoutMs, ...(options.signal ? { signal: options.signal } : {}) },
            ),
          )) as CallToolResult);
      // A tool that runs only as a task, unknown as such before the call: once more, as a task.
      if (listed === undefined && requiresTask(undefined, result)) result = await asTask();
      isError = result.isError === true;
      return result;
    } finally {
      if (token !== undefined) progress.unregister(token);
      if (timed) {
        const durationMs = performance.now() - started;
        ctx.emit('tool_completed', { server: this.id, tool: name, durationMs, isError });
      }
    }
  }

  /**
   * SEP-2243: on the 2026-07-28 wire over HTTP a call mirrors the arguments its tool's schema marks
   * `x-mcp-header` into `Mcp-Param-*` headers, and the SDK knows those marks only from a listing. A call
   * before any listing (`mcpkit call`) lists once first; the listing is kept until the server says its
   * tools changed. A listing that fails leaves the call as it was.
   */
  private async toolHeadersKnown(): Promise<void> {
    const { lists, entry } = this.channel;
    if (lists.tools !== undefined || isStdioServer(entry) || !this.has('tools')) return;
    if (this.channel.client?.getProtocolEra() !== 'modern') return;
    lists.toolsListing ??= this.listTools()
      .catch(() => undefined)
      .finally(() => {
        delete lists.toolsListing;
      });
    await lists.toolsListing;
  }

  async listTasks(): Promise<TaskInfo[]> {
    return this.channel.run((client) => listTasks(client, { timeoutMs: this.timeoutMs() }));
  }

  async getTask(taskId: string): Promise<TaskInfo> {
    return this.channel.run((client) => getTask(client, taskId, { timeoutMs: this.timeoutMs() }));
  }

  async cancelTask(taskId: string): Promise<TaskInfo> {
    return this.channel.run((client) => cancelTask(client, taskId, { timeoutMs: this.timeoutMs() }));
  }

  private timeoutMs(): number {
    return this.entry.timeout ?? this.channel.ctx.requestTimeoutMs;
  }

  async readResource(uri: string, options: RequestOptions = {}): Promise<ReadResourceResult> {
    const result = await this.channel.run((client) => client.readResource({ uri }, this.options(options)));
    this.channel.ctx.emit('resource_read', { server: this.id, uri });
    return result;
  }

  async subscribeResource(uri: string): Promise<void> {
    const client = this.channel.ready();
    if (client.getProtocolEra() !== 'modern') {
      await this.channel.run((c) => c.subscribeResource({ uri }, this.options()));
      return;
    }
    // 2026-07-28 has no resources/subscribe: a listen stream for that resource gives the same updates.
    if (this.listens.get(uri)?.client === client) return;
    const subscription = await client.listen({ resourceSubscriptions: [uri] }, this.options());
    this.listens.set(uri, { client, close: () => subscription.close() });
  }

  async unsubscribeResource(uri: string): Promise<void> {
    const listening = this.listens.get(uri);
    if (listening) {
      this.listens.delete(uri);
      await listening.close();
      return;
    }
    if (this.channel.client?.getProtocolEra() === 'modern') return;
    await this.channel.run((client) => client.unsubscribeResource({ uri }, this.options()));
  }

  async getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: RequestOptions = {},
  ): Promise<GetPromptResult> {
    const result: GetPromptResult = await this.channel.run((client) =>
      client.getPrompt({ name, arguments: args }, this.options(options)),
    );
    this.channel.ctx.emit('prompt_rendered', { server: this.id, prompt: name });
    return result;
  }

  async complete(params: CompleteRequest['params']): Promise<CompleteResult> {
    return this.channel.run((client) => client.complete(params, this.options()));
  }

  /** 2026-07-28 has no `ping`; there a `server/discover` is the cheapest request that proves an answer. */
  async ping(): Promise<number> {
    const started = performance.now();
    await this.channel.run((client) =>
      client.getProtocolEra() === 'modern' ? client.discover(this.options()) : client.ping(this.options()),
    );
    return performance.now() - started;
  }

  async notifyRootsChanged(): Promise<void> {
    if (this.status === 'ready') await this.channel.client?.sendRootsListChanged();
  }

  async setLogLevel(level: LoggingLevel): Promise<void> {
    await this.channel.run((client) => client.setLoggingLevel(level, this.options()));
  }

  private has(capability: keyof ServerCapabilities): boolean {
    return this.channel.ready().getServerCapabilities()?.[capability] !== undefined;
  }

  /** Every page of a list, following `nextCursor`. */
  private async pages<T>(fetchPage: (client: Client, cursor?: string) => Promise<[T[], string | undefined]>) {
    const all: T[] = [];
    let cursor: string | undefined;
    do {
      const [items, next] = await this.channel.run((client) => fetchPage(client, cursor));
      all.push(...items);
      cursor = next;
    } while (cursor);
    return all;
  }

  private options(options: RequestOptions = {}) {
    return {
      timeout: this.entry.timeout ?? this.channel.ctx.requestTimeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    };
  }
}
