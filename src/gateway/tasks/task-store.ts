import { randomUUID } from 'node:crypto';
import { type CallToolResult, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { TaskInfo } from '../../client/index.js';
import { readTextIfExists, writeFileAtomic } from '../../internal/text-file.js';

/** How long a finished task is kept when the client asks for no TTL, and the most it may ask for. */
const DEFAULT_TTL_MS = 60 * 60 * 1000;
const MAX_TTL_MS = 24 * 60 * 60 * 1000;
/** What a client is told to wait between two `tasks/get`. */
const POLL_INTERVAL_MS = 500;

type Status = TaskInfo['status'];
const TERMINAL: ReadonlySet<Status> = new Set(['completed', 'failed', 'cancelled']);

/** A task the gateway runs (it also outlives the gateway, once finished: see {@link GatewayTasks}). */
interface StoredTask extends TaskInfo {
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number;
  pollInterval: number;
  result?: CallToolResult;
  error?: { code: number; message: string; data?: unknown };
  /** Who made it (the client's identity): `tasks/list` shows a client its own tasks only. */
  owner?: string;
}

interface TaskFile {
  version: 1;
  tasks: StoredTask[];
}

/** What a running task may tell its client (as `statusMessage`). */
export type TaskReport = (message: string) => void;

/**
 * The tasks the gateway offers (MCP tasks of the 2025-11-25 revision, SEP-1686) for any tool of any
 * upstream, tasks or not: the call runs in the gateway, its progress becomes the task's status message,
 * and its result is kept for the task's TTL. Finished tasks are written to a file (atomically, after each
 * one finishes), so a restarted gateway still answers for them; a task that was running when the gateway
 * stopped is gone with it.
 */
export class GatewayTasks {
  private readonly tasks = new Map<string, StoredTask>();
  private readonly running = new Map<string, AbortController>();
  private readonly waiters = new Map<string, (() => void)[]>();
  /** Who hears of each change of a running task (its client, by `notifications/tasks/status`). */
  private readonly watchers = new Map<string, (task: TaskInfo) => void>();
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly file: string | undefined,
    private readonly log: (message: string) => void = () => undefined,
  ) {}

  /** Reads the finished tasks an earlier gateway kept (a missing or unreadable file is an empty store). */
  async load(): Promise<this> {
    if (!this.file) return this;
    for (const task of await this.read(this.file)) if (!this.expired(task)) this.tasks.set(task.taskId, task);
    return this;
  }

  /** The tasks in the file; a missing file has none, an unreadable one is logged and has none. */
  private async read(file: string): Promise<StoredTask[]> {
    try {
      const text = await readTextIfExists(file);
      if (text === undefined) return [];
      const parsed = JSON.parse(text) as TaskFile;
      if (parsed?.version !== 1 || !Array.isArray(parsed.tasks))
        throw new Error('expected {"version": 1, "tasks": […]}');
      return parsed.tasks;
    } catch (error) {
      this.log(`${file}: not a task file, its tasks are not kept: ${(error as Error).message}`);
      return [];
    }
  }

  /**
   * Starts `run` as a task and returns it at once (status `working`). `ttl` is the client's wish in
   * milliseconds (capped at a day). The run's signal aborts on `tasks/cancel`. `onStatus` hears of each
   * new status message and of the end.
   */
  create(
    ttl: number | undefined,
    run: (signal: AbortSignal, report: TaskReport) => Promise<CallToolResult>,
    onStatus?: (task: TaskInfo) => void,
    owner?: string,
  ): TaskInfo {
    const now = new Date().toISOString();
    const task: StoredTask = {
      ...(owner === undefined ? {} : { owner }),
      taskId: randomUUID(),
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttl: Math.min(typeof ttl === 'number' && ttl > 0 ? Math.round(ttl) : DEFAULT_TTL_MS, MAX_TTL_MS),
      pollInterval: POLL_INTERVAL_MS,
    };
    this.prune();
    this.tasks.set(task.taskId, task);
    if (onStatus) this.watchers.set(task.taskId, onStatus);
    const controller = new AbortController();
    this.running.set(task.taskId, controller);
    const report: TaskReport = (message) => {
      if (task.status !== 'working') return;
      if (task.statusMessage === message) return;
      task.statusMessage = message;
      task.lastUpdatedAt = new Date().toISOString();
      onStatus?.(info(task));
    };
    run(controller.signal, report).then(
      (result) => this.finish(task, { status: 'completed', result }),
      (error: unknown) => {
        const { code, message, data } =
          error instanceof ProtocolError
            ? error
            : new ProtocolError(ProtocolErrorCode.InternalError, (error as Error)?.message ?? String(error));
        this.finish(task, {
          status: 'failed',
          statusMessage: message,
          error: { code, message, ...(data === undefined ? {} : { data }) },
        });
      },
    );
    return info(task);
  }

  /** A task's status, or undefined for an id this gateway does not know (or no longer keeps). */
  get(taskId: string): TaskInfo | undefined {
    const task = this.live(taskId);
    return task && info(task);
  }

  /** A task with its outcome, when it has one (the tasks extension inlines it on `tasks/get`). */
  detail(
    taskId: string,
  ):
    | (TaskInfo & { result?: CallToolResult; error?: { code: number; message: string; data?: unknown } })
    | undefined {
    const task = this.live(taskId);
    return task && { ...task };
  }

  /**
   * The tasks kept, newest first: those `owner` made when one is given (a task's id, random and unguessable, is what
   * admits to it; the list must not hand one client the ids of another's).
   */
  list(owner?: string): TaskInfo[] {
    this.prune();
    return [...this.tasks.values()]
      .filter((task) => owner === undefined || task.owner === owner)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .map(info);
  }

  /** Cancels a running task (a finished one stays as it is); its status after that. */
  cancel(taskId: string): TaskInfo | undefined {
    const task = this.live(taskId);
    if (!task) return undefined;
    if (!TERMINAL.has(task.status)) {
      this.running.get(taskId)?.abort('cancelled by the client');
      this.finish(task, { status: 'cancelled', statusMessage: 'cancelled by the client' });
    }
    return info(task);
  }

  /**
   * The task's outcome once it is finished (`tasks/result` waits for it): its result, or the protocol
   * error it ended with; a cancelled task is an error too.
   */
  async outcome(taskId: string, signal?: AbortSignal): Promise<CallToolResult> {
    const task = this.live(taskId);
    if (!task) throw unknownTask(taskId);
    if (!TERMINAL.has(task.status))
      await new Promise<void>((resolve, reject) => {
        const list = this.waiters.get(taskId) ?? [];
        list.push(resolve);
        this.waiters.set(taskId, list);
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    if (task.result) return task.result;
    const error = task.error ?? {
      code: ProtocolErrorCode.InternalError,
      message: `task ${taskId} was cancelled`,
    };
    throw new ProtocolError(error.code, error.message, error.data);
  }

  /** Waits for pending writes (for a clean stop). */
  flush(): Promise<void> {
    return this.writing;
  }

  private finish(task: StoredTask, fields: Partial<StoredTask>): void {
    if (TERMINAL.has(task.status)) return;
    Object.assign(task, fields, { lastUpdatedAt: new Date().toISOString() });
    this.running.delete(task.taskId);
    this.watchers.get(task.taskId)?.(info(task));
    this.watchers.delete(task.taskId);
    for (const wake of this.waiters.get(task.taskId) ?? []) wake();
    this.waiters.delete(task.taskId);
    this.save();
  }

  /**
   * Writes every finished, unexpired task, merged with what the file holds now (another gateway sharing
   * the config dir keeps its own); writes never interleave.
   */
  private save(): void {
    const file = this.file;
    if (!file) return;
    this.writing = this.writing.then(async () => {
      this.prune();
      const kept = new Map((await this.read(file)).map((t) => [t.taskId, t]));
      for (const task of this.tasks.values()) if (TERMINAL.has(task.status)) kept.set(task.taskId, task);
      const tasks = [...kept.values()].filter((t) => !this.expired(t));
      const body: TaskFile = { version: 1, tasks };
      await writeFileAtomic(file, `${JSON.stringify(body)}\n`, { mode: 0o600 }).catch((error: Error) =>
        this.log(`cannot keep finished tasks: ${error.message}`),
      );
    });
  }

  private live(taskId: string): StoredTask | undefined {
    const task = this.tasks.get(taskId);
    if (!task || !this.expired(task)) return task;
    this.tasks.delete(taskId);
    return undefined;
  }

  /** A finished task is dropped `ttl` after it finished; a running one never expires. */
  private expired(task: StoredTask): boolean {
    return TERMINAL.has(task.status) && Date.parse(task.lastUpdatedAt) + task.ttl < Date.now();
  }

  private prune(): void {
    for (const [id, task] of this.tasks) if (this.expired(task)) this.tasks.delete(id);
  }
}

/** -32602, the answer to an id the gateway does not know. */
export function unknownTask(taskId: unknown): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${String(taskId)}`);
}

/** The task as `tasks/get` and `tasks/list` show it (without its result). */
function info(task: StoredTask): TaskInfo {
  const { result: _result, error: _error, owner: _owner, ...rest } = task;
  return { ...rest };
}
