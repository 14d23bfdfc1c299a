import type { CallToolResult, Client, Tool } from '@modelcontextprotocol/client';
import * as z from 'zod';
import type { ProgressUpdate } from './progress-router.js';

/** One task of a server (MCP tasks, SEP-1686): a tool call that runs on while the client checks on it. */
export interface TaskInfo {
  taskId: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
  createdAt?: string;
  lastUpdatedAt?: string;
  ttl?: number | null;
  pollInterval?: number;
}

const TaskSchema = z.looseObject({
  taskId: z.string(),
  status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
  statusMessage: z.string().optional(),
  createdAt: z.string().optional(),
  lastUpdatedAt: z.string().optional(),
  ttl: z.number().nullable().optional(),
  pollInterval: z.number().optional(),
});
const CreatedSchema = z.looseObject({ task: TaskSchema });
const ListedSchema = z.looseObject({ tasks: z.array(TaskSchema), nextCursor: z.string().optional() });
const ResultSchema = z.looseObject({ content: z.array(z.unknown()).optional() });

/** What a task request needs: the SDK client, and how long one request may take. */
export interface TaskRequestOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

const TERMINAL = new Set<TaskInfo['status']>(['completed', 'failed', 'cancelled']);
/** How long a finished task's result is kept by the server, asked for on creation. */
const TASK_TTL_MS = 10 * 60_000;

/**
 * Whether a call must run as a task: the tool's listing says `execution.taskSupport: "required"`, or
 * the plain call was refused for that reason (a server that lists no such field).
 */
export function requiresTask(tool: Tool | undefined, refused?: CallToolResult): boolean {
  const execution = (tool as { execution?: { taskSupport?: string } } | undefined)?.execution;
  if (execution?.taskSupport === 'required') return true;
  if (!refused?.isError) return false;
  const first = refused.content?.[0];
  return first?.type === 'text' && /requires task augmentation/i.test(first.text);
}

/**
 * Runs a tool call as a task: creates it, reports each new status as progress while it works, and
 * returns its result. Aborting `signal` cancels the task on the server (`tasks/cancel`).
 */
export async function callToolAsTask(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: TaskRequestOptions & { onProgress?: (update: ProgressUpdate) => void },
): Promise<CallToolResult> {
  const request = { timeout: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) };
  const created = await client.request(
    { method: 'tools/call', params: { name, arguments: args, task: { ttl: TASK_TTL_MS } } },
    CreatedSchema,
    request,
  );
  const { taskId } = created.task;
  const onAbort = () =>
    void cancelTask(client, taskId, { timeoutMs: options.timeoutMs }).catch(() => undefined);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const following = options.onProgress
    ? followTask(client, created.task as TaskInfo, options.onProgress, options.timeoutMs)
    : undefined;
  try {
    // tasks/result answers once the task is finished: the status is followed meanwhile.
    return (await client.request(
      { method: 'tasks/result', params: { taskId } },
      ResultSchema,
      request,
    )) as unknown as CallToolResult;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    following?.stop();
  }
}

/** Polls a task's status at the interval it asks for; each change of status or message is a progress update. */
function followTask(
  client: Client,
  first: TaskInfo,
  onProgress: (update: ProgressUpdate) => void,
  timeoutMs: number,
): { stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let step = 0;
  let last = '';
  const report = (task: TaskInfo) => {
    const seen = `${task.status}\0${task.statusMessage ?? ''}`;
    if (seen === last) return;
    last = seen;
    onProgress({ progress: ++step, message: task.statusMessage ?? task.status });
  };
  const poll = async (task: TaskInfo) => {
    report(task);
    if (stopped || TERMINAL.has(task.status)) return;
    const wait = Math.min(Math.max(task.pollInterval ?? 1000, 100), 5000);
    timer = setTimeout(() => {
      getTask(client, task.taskId, { timeoutMs })
        .then(poll)
        .catch(() => undefined);
    }, wait);
    timer.unref();
  };
  void poll(first);
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/** One task's status (`tasks/get`). */
export async function getTask(
  client: Client,
  taskId: string,
  options: TaskRequestOptions,
): Promise<TaskInfo> {
  return (await client.request({ method: 'tasks/get', params: { taskId } }, TaskSchema, {
    timeout: options.timeoutMs,
  })) as TaskInfo;
}

/** Every task the server keeps for this client, all pages (`tasks/list`). */
export async function listTasks(client: Client, options: TaskRequestOptions): Promise<TaskInfo[]> {
  const tasks: TaskInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.request(
      { method: 'tasks/list', params: cursor ? { cursor } : {} },
      ListedSchema,
      { timeout: options.timeoutMs },
    );
    tasks.push(...(page.tasks as TaskInfo[]));
    cursor = page.nextCursor;
  } while (cursor);
  return tasks;
}

/** Cancels a task (`tasks/cancel`); its status after that. */
export async function cancelTask(
  client: Client,
  taskId: string,
  options: TaskRequestOptions,
): Promise<TaskInfo> {
  return (await client.request({ method: 'tasks/cancel', params: { taskId } }, TaskSchema, {
    timeout: options.timeoutMs,
  })) as TaskInfo;
}
