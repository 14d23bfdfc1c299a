import type { Command } from 'commander';
import type { TaskInfo } from '../client/index.js';
import type { CliIO } from './io.js';
import { usage } from './options.js';
import { only, request, rows, withRuntime } from './server-runtime.js';
import { resolveTargets } from './target.js';

/**
 * `mcpkit tasks list|get|cancel <server> [task-id]`: the long tool calls (MCP tasks) a server keeps.
 * `mcpkit call` runs a tool that needs a task as one and waits for it; these look at tasks from outside.
 */
export function registerTasksCommand(
  program: Command,
  io: CliIO,
  adhoc: readonly string[] | undefined,
): void {
  const hasAdhoc = adhoc !== undefined && adhoc.length > 0;
  program
    .command('tasks')
    .description("list a server's tasks (long tool calls), or show or cancel one: tasks list|get|cancel …")
    .argument('<action>', 'list, get or cancel')
    .argument('[args...]', '<server> [task-id] (leave out <server> with -- <command…>)')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      `
  mcpkit tasks list <server>             every task the server keeps for this client
  mcpkit tasks get <server> <task-id>    one task's status
  mcpkit tasks cancel <server> <task-id> stop a task
`,
    )
    .action(async (action: string, args: string[], opts: { json?: boolean }) => {
      if (!['list', 'get', 'cancel'].includes(action))
        usage(`tasks: unknown action "${action}" (list, get or cancel)`);
      const [server, taskId, ...extra] = hasAdhoc ? [undefined, ...args] : args;
      if (!hasAdhoc && server === undefined) usage(`tasks ${action}: missing <server>`);
      if (action !== 'list' && taskId === undefined) usage(`tasks ${action}: missing <task-id>`);
      if (extra.length > 0 || (action === 'list' && taskId !== undefined))
        usage(
          `tasks ${action}: unexpected arguments: ${[...(action === 'list' ? [taskId] : []), ...extra].join(' ')}`,
        );
      const targets = await resolveTargets(io, server, adhoc);
      await withRuntime(io, targets, 'fail-fast', async (runtime) => {
        const s = only(runtime);
        const id = taskId as string;
        const tasks =
          action === 'list'
            ? await request(s, 'tasks', () => s.listTasks())
            : [await request(s, `task ${id}`, () => (action === 'get' ? s.getTask(id) : s.cancelTask(id)))];
        if (opts.json) io.out(`${JSON.stringify(action === 'list' ? tasks : tasks[0], null, 2)}\n`);
        else if (tasks.length === 0) io.out(`${s.id}: no tasks\n`);
        else io.out(rows(tasks.map(taskRow)));
      });
    });
}

function taskRow(task: TaskInfo): string[] {
  return [task.taskId, task.status, task.statusMessage ?? '', task.lastUpdatedAt ?? task.createdAt ?? ''];
}
