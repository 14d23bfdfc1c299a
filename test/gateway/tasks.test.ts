import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { callToolAsTask, listTasks } from '../../src/client/tool-tasks.js';
import { createHttpHandler, type HttpHandler } from '../../src/serve/index.js';
import { connectInProcess, eventually, startGateway, textOf } from '../helpers/gateway.js';
import { modernRequest } from '../helpers/modern-call.js';
import { everything, fixture } from '../helpers/servers.js';

// The tasks extension (SEP-2663) through the gateway: two real upstreams (mcpkit's stand-in for the
// conformance suite's reference server, subprocesses) make tasks; a 2026-07-28 client (raw frames over the
// gateway's HTTP endpoint, in-process) sees them under the gateway's ids.
const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { extensions: { [TASKS]: {} } };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Answer {
  result?: Record<string, unknown> & { content?: { text: string }[] };
  error?: { code: number; message: string; data?: unknown };
}

async function twoUpstreams(): Promise<HttpHandler> {
  const server = (name: string) => ({
    name,
    entry: { command: process.execPath, args: [fixture('servers/conformance-server.mjs')] },
  });
  return (await gatewayOver([server('a'), server('b')])).http;
}

async function gatewayOver(servers: Parameters<typeof startGateway>[0]) {
  const started = await startGateway(servers);
  const http = createHttpHandler(started.gateway.factory, { intercept: started.gateway.intercept() });
  cleanups.push(async () => {
    await http.close();
    await started.close();
  });
  return { http, gateway: started.gateway };
}

const send = (
  http: HttpHandler,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = WITH_TASKS,
) => modernRequest<Answer>(http, method, params, { capabilities });

const slow = (http: HttpHandler, server: string, seconds: number, label: string) =>
  send(http, 'tools/call', { name: `${server}__slow_compute`, arguments: { seconds, label } });

describe('gateway: upstream tasks (the tasks extension) pass through under gateway ids', () => {
  it('routes each task to its upstream, with ids that never clash', async () => {
    const http = await twoUpstreams();
    const [a, b] = await Promise.all([slow(http, 'a', 0.2, 'from-a'), slow(http, 'b', 0.2, 'from-b')]);
    expect(a.result?.resultType).toBe('task');
    expect(b.result?.resultType).toBe('task');
    const ids = [a.result?.taskId, b.result?.taskId] as string[];
    expect(new Set(ids).size).toBe(2);
    for (const [id, label] of [
      [ids[0], 'from-a'],
      [ids[1], 'from-b'],
    ] as const) {
      const done = await eventually(async () => {
        const got = await send(http, 'tasks/get', { taskId: id });
        if (got.result?.status === 'working') return undefined;
        return got.result as { taskId: string; status: string; result: { content: { text: string }[] } };
      });
      expect(done.status).toBe('completed');
      expect(done.taskId).toBe(id);
      expect(done.result.content[0]?.text).toBe(`computed ${label} after 0.2s`);
    }
  }, 30_000);

  it('cancels through the gateway, and refuses unknown ids and clients without the extension', async () => {
    const http = await twoUpstreams();
    const created = await slow(http, 'b', 60, 'long');
    const taskId = created.result?.taskId as string;
    expect(await send(http, 'tasks/cancel', { taskId })).toEqual({
      jsonrpc: '2.0',
      id: expect.any(Number),
      result: { resultType: 'complete', _meta: expect.any(Object) },
    });
    expect((await send(http, 'tasks/get', { taskId })).result?.status).toBe('cancelled');
    expect((await send(http, 'tasks/get', { taskId: 'not-a-task' })).error?.code).toBe(-32602);
    const refused = await send(http, 'tasks/get', { taskId }, {});
    expect(refused.error?.code).toBe(-32021);
    expect(refused.error?.data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
    // Without the extension a task tool runs as a plain call.
    const plain = await send(http, 'tools/call', { name: 'a__slow_compute', arguments: { seconds: 0 } }, {});
    expect(plain.result?.resultType).toBe('complete');
    expect(plain.result?.content?.[0]?.text).toBe('computed  after 0s');
  }, 30_000);
});

// server-everything (SDK v1, 2025 revisions) lists `simulate-research-query` with execution.taskSupport
// "required" and knows nothing of the 2026 extension: the gateway makes the task.
describe("gateway: its own tasks for a 2025 upstream's task tools", () => {
  it('gives a 2026-07-28 client of the extension a task, its result inline on tasks/get', async () => {
    const { http } = await gatewayOver([{ name: 'e', entry: everything }]);
    const created = await send(http, 'tools/call', {
      name: 'e__simulate-research-query',
      arguments: { topic: 'tides' },
    });
    expect(created.result?.resultType).toBe('task');
    expect(created.result).toMatchObject({ status: 'working', ttlMs: expect.any(Number) });
    const taskId = created.result?.taskId as string;
    const done = await eventually(async () => {
      const got = await send(http, 'tasks/get', { taskId });
      return got.result?.status === 'working' ? undefined : got.result;
    });
    expect(done.status).toBe('completed');
    expect(JSON.stringify(done.result)).toContain('Research Report: tides');
    // Without the extension the gateway makes no task: the call runs to its end (as a task upstream).
    const plain = await send(
      http,
      'tools/call',
      { name: 'e__simulate-research-query', arguments: { topic: 'moons' } },
      {},
    );
    expect(plain.result?.resultType).toBe('complete');
    expect(JSON.stringify(plain.result?.content)).toContain('Research Report: moons');
  }, 60_000);

  it("runs a 2025 client's task call, its upstream task running under it", async () => {
    const { gateway } = await gatewayOver([{ name: 'e', entry: everything }]);
    const { client, close } = await connectInProcess(gateway);
    cleanups.push(close);
    const statuses: string[] = [];
    const result = await callToolAsTask(
      client,
      'e__simulate-research-query',
      { topic: 'stars' },
      {
        timeoutMs: 30_000,
        onProgress: (update) => void statuses.push(update.message ?? ''),
      },
    );
    expect(textOf(result)).toContain('Research Report: stars');
    expect(statuses[0]).toBe('working');
    const [task] = await listTasks(client, { timeoutMs: 5000 });
    expect(task?.status).toBe('completed');
    expect(z.string().uuid().safeParse(task?.taskId).success).toBe(true);
  }, 60_000);
});

describe("gateway: a 2026-07-28 upstream's task-only tool for a 2025 client", () => {
  it('follows the task upstream and answers with its result, plainly or as a gateway task', async () => {
    const { gateway } = await gatewayOver([
      {
        name: 'ref',
        entry: { command: process.execPath, args: [fixture('servers/conformance-server.mjs')] },
      },
    ]);
    const { client, close } = await connectInProcess(gateway);
    cleanups.push(close);
    // failing_job refuses a client without the extension (-32021); the gateway declares it and follows.
    const plain = await client.callTool({ name: 'ref__failing_job', arguments: {} });
    expect([plain.isError, textOf(plain)]).toEqual([true, 'the job failed']);
    const asTask = await callToolAsTask(client, 'ref__failing_job', {}, { timeoutMs: 30_000 });
    expect([asTask.isError, textOf(asTask)]).toEqual([true, 'the job failed']);
  }, 30_000);
});
