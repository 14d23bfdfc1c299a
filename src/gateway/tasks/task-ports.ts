import type { TaskPorts } from '../endpoint.js';
import { installTaskHandlers, OFFERED_TASKS, startToolTask } from './task-handlers.js';
import { TASK_METHODS, TASKS_EXTENSION, type TaskRoutes } from './task-routes.js';
import type { GatewayTasks } from './task-store.js';
import { runUpstreamTask, wantsTasksExtension } from './upstream-task.js';

/**
 * The ports over the gateway's two task owners: `routes` (upstream tasks under gateway ids) and `offered`
 * (the tasks the gateway runs itself, kept across restarts once finished).
 */
export function taskPorts(routes: TaskRoutes, offered: GatewayTasks): TaskPorts {
  return {
    router: {
      offers: (target, capabilities, version) => routes.offers(target, capabilities, version),
      run: (call) => routes.run(call),
      adopt: (server, result) => routes.adopt(server, result),
      wantsExtension: wantsTasksExtension,
      follow: runUpstreamTask,
    },
    fastPath: {
      methods: TASK_METHODS,
      serve: (method, params, signal) => routes.serve(method, params, signal),
    },
    handlers: {
      start: (router, call, downstream, identity) =>
        startToolTask(offered, router, call, downstream, identity),
      install: (server, identity) => installTaskHandlers(server, offered, identity),
    },
    offered: OFFERED_TASKS,
    extension: TASKS_EXTENSION,
  };
}
