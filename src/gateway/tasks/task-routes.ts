import { randomUUID } from 'node:crypto';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import type { RawRelayPort, TaskInfo } from '../../client/index.js';
import type { ProgressUpdate } from '../../serve/index.js';
import type { ExposedTool } from '../catalog.js';
import { withoutServerInfo } from '../relayed.js';
import { relayRequest } from '../upstream-relay.js';
import type { GatewayTasks } from './task-store.js';

/** The tasks extension of the 2026-07-28 revision (SEP-2663): server-decided tasks, results on `tasks/get`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The extension's methods on a task the gateway routes (`tasks/list` and `tasks/result` are not in it). */
export const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

/** SEP-2575's "Missing Required Client Capability". */
export const MISSING_CAPABILITY = -32021;

/** How long a route outlives its task's last news when the upstream names no `ttlMs`. */
const DEFAULT_KEEP_MS = 60 * 60 * 1000;

interface Route {
  server: string;
  upstreamId: string;
  keepMs: number;
  expires: number;
}

const MODERN = '2026-07-28';

/** A task as the extension names its fields (`ttlMs`, `pollIntervalMs`). */
function extensionTask(task: TaskInfo): Record<string, unknown> {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttl, pollInterval } = task;
  return {
    taskId,
    status,
    ...(statusMessage === undefined ? {} : { statusMessage }),
    createdAt,
    lastUpdatedAt,
    ttlMs: ttl ?? null,
    ...(pollInterval === undefined ? {} : { pollIntervalMs: pollInterval }),
  };
}

/** Whether a request's `_meta` declares the tasks extension among its client's capabilities. */
export function declaresTasks(meta: unknown): boolean {
  const capabilities = (meta as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/**
 * Upstream tasks (SEP-2663) passed through to the gateway's 2026-07-28 clients. A task an upstream creates
 * gets an opaque gateway id, mapped to (upstream, upstream id), so two upstreams' ids never clash and a
 * client cannot reach a task by guessing another upstream's id; `tasks/get`, `tasks/update` and
 * `tasks/cancel` are routed by it and answered with the gateway id. A route lives as long as its task's
 * `ttlMs` after the last news of it.
 */
export class TaskRoutes {
  private readonly routes = new Map<string, Route>();

  constructor(
    private readonly relayOf: (server: string) => RawRelayPort | undefined,
    /** The gateway's own tasks: those it runs for tools of upstreams without the extension. */
    private readonly offered: GatewayTasks,
  ) {}

  /**
   * Whether the gateway makes a task of a 2026-07-28 client's call to this tool: the client declared the
   * extension (`capabilities`), and the tool's 2025 upstream lists it as one that runs as a task
   * (`execution.taskSupport` `optional` or `required`: the only tools known to be slow). A 2026 upstream
   * decides for itself.
   */
  offers(target: ExposedTool, capabilities: unknown, upstreamVersion: string | undefined): boolean {
    if (upstreamVersion === MODERN || !declaresTasks({ [CLIENT_CAPABILITIES_META_KEY]: capabilities }))
      return false;
    const support = (target.definition as { execution?: { taskSupport?: string } }).execution?.taskSupport;
    return support === 'optional' || support === 'required';
  }

  /**
   * Runs a call as one of the gateway's tasks; the extension's `CreateTaskResult` for it, at once. Its
   * progress becomes the task's status message.
   */
  run(
    call: (
      signal: AbortSignal,
      progress: (update: ProgressUpdate) => Promise<void>,
    ) => Promise<CallToolResult>,
  ): Record<string, unknown> {
    const task = this.offered.create(undefined, (signal, report) =>
      call(signal, async ({ progress, total, message }) =>
        report(message ?? (total ? `${progress}/${total}` : String(progress))),
      ),
    );
    return { ...extensionTask(task), resultType: 'task' };
  }

  /** An upstream's `CreateTaskResult`, its task id replaced by a new gateway id. */
  adopt(server: string, result: Record<string, unknown>): Record<string, unknown> {
    this.prune();
    const upstreamId = String(result.taskId);
    const id = randomUUID();
    const keepMs = typeof result.ttlMs === 'number' ? result.ttlMs : DEFAULT_KEEP_MS;
    this.routes.set(id, { server, upstreamId, keepMs, expires: Date.now() + keepMs });
    return { ...withoutServerInfo(result), resultType: 'task', taskId: id };
  }

  /**
   * Serves one `tasks/get`, `tasks/update` or `tasks/cancel`: refused with -32021 when the request does
   * not declare the extension, -32602 for an id the gateway did not give; otherwise the upstream's answer
   * with the gateway's id in it.
   */
  async serve(
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    if (!declaresTasks(params._meta))
      throw new ProtocolError(
        MISSING_CAPABILITY,
        `${method} needs the ${TASKS_EXTENSION} extension: declare it in the client capabilities`,
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      );
    const id = params.taskId;
    const own = typeof id === 'string' ? this.offered.detail(id) : undefined;
    if (own) return this.serveOwn(method, own);
    const route = typeof id === 'string' ? this.routes.get(id) : undefined;
    if (!route || route.expires < Date.now())
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${String(id)}`);
    const relay = this.relayOf(route.server);
    if (!relay)
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `the server "${route.server}" of task ${String(id)} is not ready`,
      );
    const { _meta, ...rest } = params;
    const capabilities = (_meta as Record<string, unknown>)[CLIENT_CAPABILITIES_META_KEY] as Record<
      string,
      unknown
    >;
    const outcome = await relayRequest(relay, method, { ...rest, taskId: route.upstreamId }, signal, {
      clientCapabilities: capabilities,
    });
    if (!outcome || outcome.kind === 'fallback')
      throw new ProtocolError(ProtocolErrorCode.InternalError, `${method}: no answer from "${route.server}"`);
    if (outcome.kind === 'error') {
      const { code, message, data } = outcome.error;
      throw new ProtocolError(code, message, data);
    }
    route.expires = Date.now() + route.keepMs;
    const result: Record<string, unknown> = { ...outcome.result, resultType: 'complete' };
    if ('taskId' in result) result.taskId = id;
    return result;
  }

  /** The extension's answers for a task the gateway runs itself (it asks no input: `tasks/update` is acked). */
  private serveOwn(
    method: string,
    task: NonNullable<ReturnType<GatewayTasks['detail']>>,
  ): Record<string, unknown> {
    if (method === 'tasks/cancel') {
      this.offered.cancel(task.taskId);
      return { resultType: 'complete' };
    }
    if (method !== 'tasks/get') return { resultType: 'complete' };
    return {
      resultType: 'complete',
      ...extensionTask(task),
      ...(task.result ? { result: task.result } : {}),
      ...(task.error ? { error: task.error } : {}),
    };
  }

  private prune(): void {
    const now = Date.now();
    for (const [id, route] of this.routes) if (route.expires < now) this.routes.delete(id);
  }
}
