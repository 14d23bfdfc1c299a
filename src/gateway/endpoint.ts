import type { ServerCapabilities } from '@modelcontextprotocol/server';
import { PACKAGE_VERSION } from '../internal/package-version.js';
import type { FrameIntercept } from '../serve/index.js';
import type { Catalog, PrefixMode } from './catalog.js';
import { Deferral, envelopeClientInfo, identityOf } from './deferral.js';
import type { Downstreams } from './downstream.js';
import { type FastPathTasks, toolCallFastPath } from './fast-path.js';
import type { InputFlows } from './input-flows.js';
import type { LiveCatalog } from './live-catalog.js';
import type { CallEvents } from './observers/call-events.js';
import type { ProfileView } from './profiles.js';
import type { HandlerHost, HandlerTasks } from './proxy-handlers.js';
import { holdListened } from './resource-subscriptions.js';
import { capResult } from './result-cap.js';
import type { ResultStore } from './result-store.js';
import { type RouterTasks, ToolRouter } from './router.js';
import type { UpstreamStatus, Upstreams } from './upstreams.js';

/** Who the gateway says it is, on every instance and every fast-path answer. */
export const SERVER_INFO = { name: 'mcpkit-gateway', version: PACKAGE_VERSION };

/** The tasks room (`gateway/tasks/`) as the call path reaches it: one port for each part that needs tasks. */
export interface TaskPorts {
  /** The router: upstream tasks for 2026-07-28 clients, task-only tools followed for the others. */
  router: RouterTasks;
  /** The fast path: a 2026-07-28 client's requests about a task. */
  fastPath: FastPathTasks;
  /** The SDK path: the tasks the gateway runs for 2025 clients. */
  handlers: HandlerTasks;
  /** The `tasks` capability a 2025 client is offered: any tool as a task. */
  offered: NonNullable<ServerCapabilities['tasks']>;
  /** The extension passed through to 2026-07-28 clients when an upstream offers it. */
  extension: string;
}

/** What every endpoint of one gateway shares. */
export interface EndpointParts {
  live: LiveCatalog;
  upstreams: Upstreams;
  downstreams: Downstreams;
  /** 2025 upstreams' mid-call requests, put to 2026-07-28 clients as `input_required` rounds. */
  inputs: InputFlows;
  calls: CallEvents;
  results: ResultStore;
  tasks: TaskPorts;
  prefix: PrefixMode;
  deferThreshold: number;
  shareRevealed: ((identity: string, names: string[]) => void) | undefined;
  maxResultTokens: number;
  status(): UpstreamStatus[];
}

/**
 * One way the gateway is served: every tool (no view) or one profile's. Each has its own deferral and a
 * router that sees only its tools; its SDK instances (see `createServer`) share one handler host.
 */
export class Endpoint {
  readonly deferral: Deferral;
  readonly router: ToolRouter;
  readonly catalog: () => Promise<Catalog>;
  /** What this endpoint's request handlers use, made with its first instance. */
  host: HandlerHost | undefined;

  constructor(
    readonly parts: EndpointParts,
    readonly view: ProfileView | undefined,
  ) {
    const { live, downstreams } = parts;
    const deferral = new Deferral(
      parts.deferThreshold,
      (identity) => downstreams.listChanged(['tools'], identity),
      parts.shareRevealed,
    );
    this.deferral = deferral;
    this.catalog = async () => (view ? view.of(await live.get()) : live.get());
    this.router = new ToolRouter({
      tasks: parts.tasks.router,
      catalog: this.catalog,
      built: () => {
        const built = live.now();
        return view && built ? view.of(built) : built;
      },
      upstreams: parts.upstreams,
      downstreams,
      inputs: parts.inputs,
      prefix: parts.prefix,
      known: live.known,
      toolSearch: (catalog, args, identity) =>
        deferral.toolSearch(catalog, args, identity ?? identityOf(undefined)),
      capResult: (result) => capResult(result, parts.maxResultTokens, parts.results),
      events: parts.calls,
      ...(view ? { admits: view.admits, profile: view.name } : {}),
    });
  }

  /** The hot path of this endpoint's clients: plain tool calls routed frame to frame. */
  intercept(): FrameIntercept {
    const { downstreams, tasks, upstreams } = this.parts;
    const fast = toolCallFastPath({
      router: this.router,
      tasks: tasks.fastPath,
      downstream: () => downstreams.latest(),
      identity: (meta) => identityOf(envelopeClientInfo(meta)),
      serverInfo: SERVER_INFO,
    });
    const subscriptions = { catalog: this.catalog, upstreams, downstreams };
    return (message, reply, context) => {
      // A 2026-07-28 listen stream over HTTP: the SDK serves it; the resources it names are subscribed to.
      const refused = context ? holdListened(subscriptions, message, context) : undefined;
      if (refused) {
        void reply(refused);
        return true;
      }
      return fast(message, reply, context);
    };
  }
}
