import type {
  CallToolResult,
  CompleteRequest,
  CompleteResult,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/client';
import type { ServerEntry } from '../config/index.js';
import type { FailureCategory } from './events.js';
import type { ProgressUpdate } from './progress-router.js';
import type { ServerSkills } from './skills.js';
import type { TaskInfo } from './tool-tasks.js';

/** Where a server is in its life. */
export type ServerStatus = 'starting' | 'ready' | 'failed' | 'stopped';

/** Why a server failed, as `server_failed` reported it. */
export interface ServerFailure {
  readonly category: FailureCategory;
  readonly message: string;
}

/** Options for one tool call. */
export interface CallToolOptions {
  /** Abort to cancel: the server gets `notifications/cancelled`. */
  signal?: AbortSignal;
  /** Every progress notification of this call, including one that arrives with the response. */
  onProgress?: (update: ProgressUpdate) => void;
  timeoutMs?: number;
}

/** Options for a request that can be cancelled. */
export interface RequestOptions {
  signal?: AbortSignal;
}

/**
 * One server of a {@link Runtime}, as its users see it: what it is, how it is doing, and the requests it
 * takes. Read-only: the Runtime starts and stops servers (`add`, `remove`, `close`).
 *
 * @example
 * const fs = runtime.server('fs');
 * if (fs.status === 'ready') console.log(fs.serverInfo?.name, (await fs.listTools()).length);
 */
export interface ServerHandle {
  /** The name in this runtime (a repeated configured name becomes `name-1`, …). */
  readonly id: string;
  /** The entry as configured (`${VAR}`s not expanded). */
  readonly entry: ServerEntry;
  readonly status: ServerStatus;
  /** Set once the server failed to start or stopped working. */
  readonly failure?: ServerFailure | undefined;
  readonly serverInfo: Implementation | undefined;
  readonly capabilities: ServerCapabilities | undefined;
  readonly protocolVersion: string | undefined;
  readonly instructions: string | undefined;
  /** The tools last listed (refreshed on list_changed); undefined before the first listing. */
  readonly cachedTools: readonly Tool[] | undefined;

  /** Every tool, all pages, after `includeTools` / `excludeTools`. */
  listTools(): Promise<Tool[]>;
  /** Every resource, all pages. */
  listResources(): Promise<Resource[]>;
  /** Every resource template, all pages; none when the server does not implement the method. */
  listResourceTemplates(): Promise<ResourceTemplate[]>;
  /** Every prompt, all pages. */
  listPrompts(): Promise<Prompt[]>;
  /** Calls a tool. A tool failure is a result with `isError`; protocol failures throw. */
  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<CallToolResult>;
  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult>;
  /** Asks for `resource_updated` events when the resource changes. */
  subscribeResource(uri: string): Promise<void>;
  unsubscribeResource(uri: string): Promise<void>;
  getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Promise<GetPromptResult>;
  complete(params: CompleteRequest['params']): Promise<CompleteResult>;
  /** Round-trip time in milliseconds (`server/discover` on 2026-07-28, which has no `ping`). */
  ping(): Promise<number>;
  /** Tells the server the client's roots changed (it will ask for them again). */
  notifyRootsChanged(): Promise<void>;
  setLogLevel(level: LoggingLevel): Promise<void>;
  /** The tasks (long tool calls, SEP-1686) the server keeps for this client. */
  listTasks(): Promise<TaskInfo[]>;
  /** One task's status. */
  getTask(taskId: string): Promise<TaskInfo>;
  /** Cancels a task; its status after that. */
  cancelTask(taskId: string): Promise<TaskInfo>;
  /** Its skills (the Skills extension): listed, got, and read with every file verified. */
  readonly skills: ServerSkills;
}
