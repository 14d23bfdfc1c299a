import type { CallToolResult, Server, ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { TaskInfo } from '../../client/index.js';
import type { Downstream } from '../downstream.js';
import type { ToolRouter } from '../router.js';
import { type GatewayTasks, unknownTask } from './task-store.js';

/** The `tasks` capability of the 2025-11-25 revision, for what the gateway offers: any tool as a task. */
export const OFFERED_TASKS = { list: {}, cancel: {}, requests: { tools: { call: {} } } } as const;

/** The `_meta` key that ties a task's result to its task (SEP-1686). */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/**
 * A 2025 client's `tools/call` with a `task` (SEP-1686): the call runs as a gateway task (through the
 * router, as any call would, so an upstream's own task-only tools work too), its progress becoming the
 * task's status message; the answer is the task, at once.
 */
export function startToolTask(
  tasks: GatewayTasks,
  router: ToolRouter,
  call: { name: string; arguments: Record<string, unknown>; ttl: number | undefined },
  downstream: Downstream,
  identity: string,
): { task: TaskInfo; content: { type: 'text'; text: string }[] } {
  const task = tasks.create(
    call.ttl,
    (signal, report) =>
      router.call(call.name, call.arguments, {
        signal,
        downstream,
        era: downstream.era,
        identity,
        progress: async ({ progress, total, message }) =>
          report(message ?? (total ? `${progress}/${total}` : String(progress))),
      }),
    // Its client hears of each change without polling (SEP-1686's optional status notification).
    (changed) => {
      if (!downstream.server.transport) return;
      downstream.server
        .notification({ method: 'notifications/tasks/status', params: changed } as never)
        .catch(() => undefined);
    },
    identity,
  );
  // The task, and a line for the reader: SDK v2 clients refuse a tools/call answer without `content`.
  const text = `Task ${task.taskId} started: tasks/get for its status, tasks/result for its result.`;
  return { task, content: [{ type: 'text', text }] };
}

/** The task methods' params, built once: per server they were ~6 KB of every 2025 session's ~21 KB. */
const BY_ID = { params: z.looseObject({ taskId: z.string() }) };
const LIST = { params: z.looseObject({}).optional() };

/**
 * `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` of a 2025 client, served from the gateway's tasks;
 * the list holds the tasks of this client's identity only.
 */
export function installTaskHandlers(server: Server, tasks: GatewayTasks, identity: () => string): void {
  // Custom-method registrations: the SDK's typed ones no longer name the 2025 task methods.
  server.setRequestHandler('tasks/get', BY_ID, async ({ taskId }) => {
    const task = tasks.get(taskId);
    if (!task) throw unknownTask(taskId);
    return task as unknown as Record<string, unknown>;
  });
  server.setRequestHandler('tasks/result', BY_ID, async ({ taskId }, ctx: ServerContext) => {
    const result: CallToolResult = await tasks.outcome(taskId, ctx.mcpReq.signal);
    return { ...result, _meta: { ...result._meta, [RELATED_TASK]: { taskId } } };
  });
  server.setRequestHandler('tasks/list', LIST, async () => ({
    tasks: tasks.list(identity()),
  }));
  server.setRequestHandler('tasks/cancel', BY_ID, async ({ taskId }) => {
    const task = tasks.cancel(taskId);
    if (!task) throw unknownTask(taskId);
    return task as unknown as Record<string, unknown>;
  });
}
