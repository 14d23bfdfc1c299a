import { describe, expect } from 'vitest';
import { Runtime } from '../../src/client/index.js';
import { runInProcess } from '../config/run-in-process.js';
import type { Workspace } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { test as it } from '../helpers/fixtures.js';
import { connectInProcess, startGateway, textOf } from '../helpers/gateway.js';
import { everything, everythingWords } from '../helpers/servers.js';

// server-everything's `simulate-research-query` runs only as a task (execution.taskSupport: "required").
let ws: Workspace;
it.beforeEach(({ workspace }) => {
  ws = workspace;
});

describe('tasks: tools that run only as a task', () => {
  it('`mcpkit call` runs one as a task: its status as progress, then its result', async () => {
    const r = await runInProcess(ws, [
      'call',
      'simulate-research-query',
      '{"topic":"tides"}',
      '--',
      ...everythingWords,
    ]);
    expect(r.stderr).not.toContain('requires task augmentation');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('# Research Report: tides');
    expect(r.stderr).toContain('Generating report...');
  }, 30_000);

  it('the Runtime calls it, lists the task, and cancels a running one', async () => {
    const runtime = await Runtime.create({ servers: [{ name: 'e', entry: everything }] });
    try {
      const server = runtime.server('e');
      const done = await server.callTool('simulate-research-query', { topic: 'moons' });
      expect(JSON.stringify(done.content)).toContain('Research Report: moons');
      const finished = await server.listTasks();
      expect(finished.map((t) => t.status)).toEqual(['completed']);
      const controller = new AbortController();
      const running = server.callTool(
        'simulate-research-query',
        { topic: 'stars' },
        { signal: controller.signal },
      );
      const task = await eventually(async () =>
        (await server.listTasks()).find((t) => t.status === 'working'),
      );
      expect((await server.getTask(task.taskId)).status).toBe('working');
      controller.abort('enough');
      await expect(running).rejects.toThrow();
      await eventually(async () =>
        (await server.getTask(task.taskId)).status === 'cancelled' ? true : undefined,
      );
      const cancelled = await server.callTool('simulate-research-query', { topic: 'comets' });
      expect(JSON.stringify(cancelled.content)).toContain('comets');
    } finally {
      await runtime.close();
    }
  }, 30_000);

  it('`mcpkit tasks` lists, and refuses a wrong command line with exit 2', async () => {
    const listed = await runInProcess(ws, ['tasks', 'list', '--', ...everythingWords]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/: no tasks\n$/);
    const noId = await runInProcess(ws, ['tasks', 'get', '--', ...everythingWords]);
    expect([noId.code, noId.stderr]).toEqual([2, 'mcpkit: tasks get: missing <task-id>\n']);
    const wrong = await runInProcess(ws, ['tasks', 'show', 'x']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('tasks: unknown action "show" (list, get or cancel)');
    const unknown = await runInProcess(ws, ['tasks', 'get', 'abc', '--', ...everythingWords]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/refused task abc: .*\n$/);
  }, 30_000);
});

describe('tasks: through the gateway', () => {
  it('a client that knows nothing of tasks calls a task-only tool of an upstream, and gets its result', async () => {
    const started = await startGateway([{ name: 'e', entry: everything }]);
    const client = await connectInProcess(started.gateway);
    try {
      const result = await client.client.callTool({
        name: 'e__simulate-research-query',
        arguments: { topic: 'reefs' },
      });
      expect(result.isError).not.toBe(true);
      expect(textOf(result)).toContain('# Research Report: reefs');
    } finally {
      await client.close();
      await started.close();
    }
  }, 30_000);
});
