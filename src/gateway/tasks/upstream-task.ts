import { type CallToolResult, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { RawRelayPort } from '../../client/index.js';
import type { ProgressUpdate } from '../../serve/index.js';
import { asCallToolResult } from '../relayed.js';
import { relayRequest } from '../upstream-relay.js';
import { MISSING_CAPABILITY, TASKS_EXTENSION } from './task-routes.js';

const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } };
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Whether an upstream refused a call because it runs only as a task of the extension (SEP-2663). */
export function wantsTasksExtension(error: { code: number; data?: unknown }): boolean {
  if (error.code !== MISSING_CAPABILITY) return false;
  const required = (
    error.data as { requiredCapabilities?: { extensions?: Record<string, unknown> } } | undefined
  )?.requiredCapabilities;
  return required?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/**
 * Runs a call of a 2026-07-28 upstream's task-only tool for a client that cannot take a task (a 2025
 * client, or one without the extension): the gateway declares the extension upstream, follows the task
 * with `tasks/get` at the interval the upstream asks for (its status messages as progress), and returns
 * the result inline in the finished task. A cancel of the call cancels the task upstream; a task that
 * wants input is cancelled too (the client cannot be asked through it).
 */
export async function runUpstreamTask(
  relay: RawRelayPort,
  tool: string,
  args: Record<string, unknown>,
  signal: AbortSignal | undefined,
  progress?: (update: ProgressUpdate) => Promise<void>,
): Promise<CallToolResult> {
  const round = { clientCapabilities: WITH_TASKS };
  const ask = async (method: string, params: Record<string, unknown>, cancellable = signal) => {
    const outcome = await relayRequest(relay, method, params, cancellable, round);
    if (outcome?.kind === 'error') {
      const { code, message, data } = outcome.error;
      throw new ProtocolError(code, message, data);
    }
    if (!outcome || outcome.kind === 'fallback' || outcome.kind === 'input')
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `${method} of ${tool}: no usable answer upstream`,
      );
    return outcome.result;
  };
  const created = await ask('tools/call', { name: tool, arguments: args });
  if (typeof created.taskId !== 'string') return asCallToolResult(created);
  const taskId = created.taskId;
  const cancel = () => void ask('tasks/cancel', { taskId }, undefined).catch(() => undefined);
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    let step = 0;
    let said: unknown;
    let task = created;
    for (;;) {
      if (task.statusMessage !== undefined && task.statusMessage !== said && progress) {
        said = task.statusMessage;
        await progress({ progress: ++step, message: String(said) });
      }
      if (TERMINAL.has(String(task.status))) break;
      if (task.status === 'input_required') {
        cancel();
        throw new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          `${tool} asks for input as a task, which only a client of the ${TASKS_EXTENSION} extension can give`,
        );
      }
      const wait = Math.min(Math.max(Number(task.pollIntervalMs) || 1000, 50), 5000);
      await new Promise((resolve) => setTimeout(resolve, wait));
      if (signal?.aborted) throw new ProtocolError(ProtocolErrorCode.InternalError, `${tool} was cancelled`);
      task = await ask('tasks/get', { taskId });
    }
    if (task.status === 'completed' && task.result)
      return asCallToolResult(task.result as Record<string, unknown>);
    const error = task.error as { code?: number; message?: string; data?: unknown } | undefined;
    throw new ProtocolError(
      error?.code ?? ProtocolErrorCode.InternalError,
      error?.message ?? `the task of ${tool} ended ${String(task.status)}`,
      error?.data,
    );
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
}
