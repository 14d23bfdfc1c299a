import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { callToolAsTask, getTask, listTasks } from '../../src/client/tool-tasks.js';
import { connectInProcess, eventually, inProcessUpstream, startGateway, textOf } from '../helpers/gateway.js';

// The gateway offers tasks (SEP-1686, the 2025-11-25 revision) for any tool, here of an upstream that
// knows nothing of tasks; finished ones are kept in a file and survive a restart of the gateway.
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An upstream whose `wait` tool answers only when `release` is called (and reports progress first). */
function slowUpstream() {
  const releases: (() => void)[] = [];
  const config = inProcessUpstream('slow', () => {
    const server = new McpServer({ name: 'slow', version: '1' });
    server.registerTool(
      'wait',
      { description: 'Waits.', inputSchema: z.object({ label: z.string() }) },
      async ({ label }, ctx) => {
        const token = ctx.mcpReq._meta?.progressToken;
        if (token !== undefined)
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken: token, progress: 1, total: 2, message: `half of ${label}` },
          });
        await new Promise<void>((resolve) => releases.push(resolve));
        return { content: [{ type: 'text', text: `done ${label}` }] };
      },
    );
    return server;
  });
  return { config, release: () => releases.shift()?.(), waiting: () => releases.length };
}

async function gatewayWith(taskFile: string, upstream = slowUpstream()) {
  const started = await startGateway([upstream.config], { taskFile });
  const client = await connectInProcess(started.gateway);
  cleanups.push(async () => {
    await client.close();
    await started.close();
  });
  return { ...started, client: client.client, upstream };
}

async function tempFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcpkit-tasks-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'gateway-tasks.json');
}

describe('gateway: tasks offered for any tool (2025 clients)', () => {
  it('runs a call as a task: status with progress, the result, the list, and cancel', async () => {
    const { client, upstream } = await gatewayWith(await tempFile());
    const heard: { status: string; statusMessage?: string }[] = [];
    client.fallbackNotificationHandler = async (note) => {
      if (note.method === 'notifications/tasks/status')
        heard.push(note.params as { status: string; statusMessage?: string });
    };
    expect(client.getServerCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const created = (await client.request(
      {
        method: 'tools/call',
        params: { name: 'slow__wait', arguments: { label: 'one' }, task: { ttl: 60_000 } },
      },
      z.looseObject({ task: z.looseObject({ taskId: z.string(), status: z.string() }) }),
    )) as { task: { taskId: string; status: string } };
    expect(created.task.status).toBe('working');
    const { taskId } = created.task;
    // The upstream's progress becomes the task's status message.
    await eventually(async () => {
      const task = await getTask(client, taskId, { timeoutMs: 5000 });
      return task.statusMessage === 'half of one' ? task : undefined;
    });
    await eventually(() => (upstream.waiting() > 0 ? true : undefined));
    upstream.release();
    const result = await client.request(
      { method: 'tasks/result', params: { taskId } },
      z.looseObject({ content: z.array(z.looseObject({ text: z.string() })) }),
    );
    expect(result.content[0]?.text).toBe('done one');
    // Each change was told without polling: the progress message, then the end.
    await eventually(() => (heard.length >= 2 ? true : undefined));
    expect(heard.map((t) => [t.status, t.statusMessage])).toEqual([
      ['working', 'half of one'],
      ['completed', 'half of one'],
    ]);
    expect((await getTask(client, taskId, { timeoutMs: 5000 })).status).toBe('completed');
    expect((await listTasks(client, { timeoutMs: 5000 })).map((t) => [t.taskId, t.status])).toEqual([
      [taskId, 'completed'],
    ]);

    const controller = new AbortController();
    const cancelled = callToolAsTask(
      client,
      'slow__wait',
      { label: 'two' },
      { timeoutMs: 5000, signal: controller.signal },
    );
    await eventually(() => (upstream.waiting() > 0 ? true : undefined));
    controller.abort();
    await expect(cancelled).rejects.toThrow();
    await eventually(async () => {
      const tasks = await listTasks(client, { timeoutMs: 5000 });
      return tasks.some((t) => t.status === 'cancelled') ? true : undefined;
    });
    await expect(getTask(client, 'no-such-task', { timeoutMs: 5000 })).rejects.toThrow(/Unknown task/);
  });

  it("lists a client's own tasks only; another client of the gateway does not see their ids", async () => {
    const { client, upstream, gateway } = await gatewayWith(await tempFile());
    const other = await connectInProcess(gateway, { name: 'someone-else' });
    cleanups.push(() => other.close());
    const running = callToolAsTask(client, 'slow__wait', { label: 'mine' }, { timeoutMs: 5000 });
    await eventually(() => (upstream.waiting() > 0 ? true : undefined));
    upstream.release();
    expect(textOf(await running)).toBe('done mine');
    const [mine] = await listTasks(client, { timeoutMs: 5000 });
    expect(mine?.status).toBe('completed');
    expect(await listTasks(other.client, { timeoutMs: 5000 })).toEqual([]);
  });

  it('keeps a finished result across a restart of the gateway', async () => {
    const file = await tempFile();
    const first = await gatewayWith(file);
    const running = callToolAsTask(first.client, 'slow__wait', { label: 'kept' }, { timeoutMs: 5000 });
    await eventually(() => (first.upstream.waiting() > 0 ? true : undefined));
    first.upstream.release();
    expect(textOf(await running)).toBe('done kept');
    const [task] = await listTasks(first.client, { timeoutMs: 5000 });
    await first.close();
    expect(JSON.parse(await readFile(file, 'utf8')).tasks).toHaveLength(1);

    const second = await gatewayWith(file);
    const again = await getTask(second.client, task?.taskId as string, { timeoutMs: 5000 });
    expect(again.status).toBe('completed');
    const result = await second.client.request(
      { method: 'tasks/result', params: { taskId: task?.taskId } },
      z.looseObject({ content: z.array(z.looseObject({ text: z.string() })) }),
    );
    expect(result.content[0]?.text).toBe('done kept');
  });

  it('forgets a finished task once its TTL has run out', async () => {
    const { client, upstream } = await gatewayWith(await tempFile());
    const created = (await client.request(
      {
        method: 'tools/call',
        params: { name: 'slow__wait', arguments: { label: 'brief' }, task: { ttl: 200 } },
      },
      z.looseObject({ task: z.looseObject({ taskId: z.string(), ttl: z.number() }) }),
    )) as { task: { taskId: string; ttl: number } };
    expect(created.task.ttl).toBe(200);
    await eventually(() => (upstream.waiting() > 0 ? true : undefined));
    upstream.release();
    const { taskId } = created.task;
    await eventually(async () =>
      (await getTask(client, taskId, { timeoutMs: 5000 })).status === 'completed' ? true : undefined,
    );
    await eventually(async () =>
      (await getTask(client, taskId, { timeoutMs: 5000 }).catch((error: Error) => error.message))
        .toString()
        .includes('Unknown task')
        ? true
        : undefined,
    );
    expect(await listTasks(client, { timeoutMs: 5000 })).toEqual([]);
  });
});
