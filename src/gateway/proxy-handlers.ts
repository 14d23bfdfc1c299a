import {
  CLIENT_CAPABILITIES_META_KEY,
  type CompleteRequest,
  type GetPromptResult,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type Server,
  type ServerCapabilities,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { pageOf as page, progressSender } from '../serve/index.js';
import { type Catalog, resourceOwner } from './catalog.js';
import { identityOf } from './deferral.js';
import type { Downstream, Downstreams } from './downstream.js';
import { readNamespaced } from './extensions/skill-handlers.js';
import { relay, withoutServerInfo } from './relayed.js';
import { resourceServer, subscribeUpstream, unsubscribeUpstream } from './resource-subscriptions.js';
import { RESULTS_URI, type ResultStore } from './result-store.js';
import type { ToolRouter } from './router.js';
import { type InputRound, relayRequest } from './upstream-relay.js';
import type { Upstreams } from './upstreams.js';

/** The status resource every gateway serves. */
export const STATUS_URI = 'mcpkit://gateway/status';

/** The tasks the gateway runs for 2025 clients that call a tool as a task (`gateway/tasks/`). */
export interface HandlerTasks {
  /** Starts a call as a task; the answer is the task, at once. */
  start(
    router: ToolRouter,
    call: { name: string; arguments: Record<string, unknown>; ttl: number | undefined },
    downstream: Downstream,
    identity: string,
  ): object;
  /** Installs `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` on a served instance. */
  install(server: Server, identity: () => string): void;
}

/** What the request handlers need from their gateway. */
export interface HandlerHost {
  catalog(): Promise<Catalog>;
  /** What tools/list shows this client (all tools, or the deferred view). */
  listedTools(catalog: Catalog, identity: string): Tool[];
  router: ToolRouter;
  /** The `mcpkit://gateway/status` document. */
  statusJson(): string;
  upstreams: Upstreams;
  downstreams: Downstreams;
  /** The tasks the gateway runs for 2025 clients that call a tool as a task. */
  tasks: HandlerTasks;
  /** Results cut for clients, whole: read as `mcpkit://results/<id>[/<page>]`. */
  results: ResultStore;
}

/**
 * Installs the gateway's request handlers on one served instance: listings from the catalog (paginated),
 * calls and reads routed to their upstream, whose protocol errors reach the client with their own code.
 * Handlers are installed only for the capabilities advertised.
 */
export function installHandlers(
  server: Server,
  downstream: Downstream,
  capabilities: ServerCapabilities,
  host: HandlerHost,
): void {
  // A 2025-era connection is its own client; a 2026-07-28 request names its client in its envelope (the
  // SDK hands the per-request instance that clientInfo as the client's version).
  const identity = () => downstream.identity ?? identityOf(server.getClientVersion());
  server.setRequestHandler('tools/list', async (request) => {
    const catalog = await host.catalog();
    return page(host.listedTools(catalog, identity()), request.params?.cursor, 'tools');
  });
  server.setRequestHandler('tools/call', (request, ctx) => {
    // A 2025 client may call any tool as a task (a 2026-07-28 one's `task` is a leftover: ignored).
    const task = (request.params as { task?: { ttl?: unknown } }).task;
    if (task && downstream.era === 'legacy' && capabilities.tasks) {
      const ttl = typeof task.ttl === 'number' ? task.ttl : undefined;
      const call = { name: request.params.name, arguments: request.params.arguments ?? {}, ttl };
      return host.tasks.start(host.router, call, downstream, identity()) as never;
    }
    const progress = progressSender(ctx);
    const round = downstream.era === 'modern' ? inputRound(ctx) : undefined;
    return host.router.call(request.params.name, request.params.arguments ?? {}, {
      signal: ctx.mcpReq.signal,
      downstream,
      ctx,
      era: downstream.era,
      identity: identity(),
      ...(ctx.http?.authInfo?.clientId ? { client: ctx.http.authInfo.clientId } : {}),
      ...(progress ? { progress } : {}),
      ...(round ? { round } : {}),
    });
  });
  if (capabilities.tasks) host.tasks.install(server, identity);
  server.setRequestHandler('resources/list', async (request) => {
    const catalog = await host.catalog();
    const status = {
      uri: STATUS_URI,
      name: 'gateway_status',
      mimeType: 'application/json',
      description: 'Each upstream server: state, restarts, last error.',
    };
    return page([status, ...catalog.resources], request.params?.cursor, 'resources');
  });
  server.setRequestHandler('resources/templates/list', async (request) => {
    const catalog = await host.catalog();
    return page(
      catalog.templates.map((t) => t.template),
      request.params?.cursor,
      'resourceTemplates',
    );
  });
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const { uri } = request.params;
    if (uri === STATUS_URI) {
      const text = host.statusJson();
      return { contents: [{ uri, mimeType: 'application/json', text }] };
    }
    if (uri.startsWith(RESULTS_URI)) {
      const kept = host.results.read(uri);
      if (!kept) throw new ResourceNotFoundError(uri);
      return { contents: [{ uri, mimeType: 'text/plain', text: kept.text }] };
    }
    // A skill's file or an app's page, under its namespaced URI (gateway/extensions/).
    const namespaced = await readNamespaced(host, uri, ctx.mcpReq.signal);
    if (namespaced) return namespaced;
    const owner = await resourceServer(host, uri);
    return relay(() => host.upstreams.ready(owner).readResource(uri, { signal: ctx.mcpReq.signal })).catch(
      (error: unknown) => {
        throw namingTheUri(error, uri);
      },
    );
  });
  if (capabilities.resources?.subscribe) {
    server.setRequestHandler('resources/subscribe', async (request) => {
      const { uri } = request.params;
      await subscribeUpstream(host, uri);
      downstream.subscriptions.add(uri);
      return {};
    });
    server.setRequestHandler('resources/unsubscribe', async (request) => {
      const { uri } = request.params;
      downstream.subscriptions.delete(uri);
      await unsubscribeUpstream(host, uri);
      return {};
    });
  }
  if (capabilities.prompts) {
    server.setRequestHandler('prompts/list', async (request) => {
      const catalog = await host.catalog();
      return page(
        catalog.prompts.map((p) => p.definition),
        request.params?.cursor,
        'prompts',
      );
    });
    server.setRequestHandler('prompts/get', async (request, ctx) => {
      const prompt = (await host.catalog()).promptsByName.get(request.params.name);
      if (!prompt)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
      const args = request.params.arguments ?? {};
      if (downstream.era === 'modern') {
        // A 2026 upstream that wants input first: its input_required goes to the client as it is.
        const port = host.upstreams.relay(prompt.server);
        const params = { name: prompt.prompt, arguments: args };
        const relayed =
          port && (await relayRequest(port, 'prompts/get', params, ctx.mcpReq.signal, inputRound(ctx)));
        if (relayed?.kind === 'error')
          throw new ProtocolError(relayed.error.code, relayed.error.message, relayed.error.data);
        if (relayed?.kind === 'input')
          return { ...withoutServerInfo(relayed.result, true), resultType: 'input_required' };
        if (relayed?.kind === 'result') return relayed.result as GetPromptResult;
      }
      return relay(() =>
        host.upstreams.ready(prompt.server).getPrompt(prompt.prompt, args, { signal: ctx.mcpReq.signal }),
      );
    });
  }
  if (capabilities.completions) {
    server.setRequestHandler('completion/complete', (request) => complete(host, request.params));
  }
  server.setRequestHandler('logging/setLevel', async (request) => {
    downstream.logLevel = request.params.level;
    await Promise.all(
      host.upstreams
        .sources()
        .filter((s) => s.connection.capabilities?.logging)
        .map((s) => s.connection.setLogLevel(request.params.level).catch(() => undefined)),
    );
    return {};
  });
  server.setNotificationHandler('notifications/roots/list_changed', () => {
    for (const { connection } of host.upstreams.sources())
      connection.notifyRootsChanged().catch(() => undefined);
  });
}

async function complete(host: HandlerHost, params: CompleteRequest['params']) {
  const catalog = await host.catalog();
  if (params.ref.type === 'ref/prompt') {
    const prompt = catalog.promptsByName.get(params.ref.name);
    if (!prompt)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${params.ref.name}`);
    return completeOn(host, prompt.server, { ...params, ref: { type: 'ref/prompt', name: prompt.prompt } });
  }
  const uri = params.ref.uri;
  const owner =
    resourceOwner(catalog, uri) ?? catalog.templates.find((t) => t.template.uriTemplate === uri)?.server;
  return owner === undefined ? NO_COMPLETION : completeOn(host, owner, params);
}

const NO_COMPLETION = { completion: { values: [], hasMore: false } };

/**
 * Asks the upstream even when it does not declare completions (liberal: a 2026-07-28 server in the field —
 * the conformance suite's reference — answers `completion/complete` without declaring it); one that does
 * not know the method has no suggestions.
 */
async function completeOn(host: HandlerHost, server: string, params: CompleteRequest['params']) {
  const connection = host.upstreams.ready(server);
  try {
    return await relay(() => connection.complete(params));
  } catch (error) {
    if (error instanceof ProtocolError && error.code === ProtocolErrorCode.MethodNotFound)
      return NO_COMPLETION;
    throw error;
  }
}

/**
 * An upstream's "no such resource" (-32602, or -32002 of earlier revisions) names the URI in its data, as
 * SEP-2164 asks: a 2025 upstream's error often does not, and the client should learn which one.
 */
function namingTheUri(error: unknown, uri: string): unknown {
  if (!(error instanceof ProtocolError)) return error;
  if (error.code !== ProtocolErrorCode.InvalidParams && error.code !== RESOURCE_NOT_FOUND) return error;
  const data = error.data;
  if (data !== undefined && (typeof data !== 'object' || data === null || Array.isArray(data))) return error;
  if (data && 'uri' in data) return error;
  return new ProtocolError(error.code, error.message, { ...data, uri });
}

/** "Resource not found" before SEP-2164 made it -32602. */
const RESOURCE_NOT_FOUND = -32002;

/** A 2026-07-28 call's declared capabilities and, on a retry, its answers and echoed state, as the SDK took them. */
function inputRound(ctx: ServerContext): InputRound {
  const { inputResponses, _meta } = ctx.mcpReq;
  const requestState = ctx.mcpReq.requestState();
  // The envelope as the client sent it: the SDK's parsed `_meta` may leave out what it does not know (the
  // tasks extension among the capabilities).
  const envelope = (ctx.mcpReq as { envelope?: Record<string, unknown> }).envelope;
  const clientCapabilities =
    envelope?.[CLIENT_CAPABILITIES_META_KEY] ??
    (_meta as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
  return {
    ...(inputResponses === undefined ? {} : { inputResponses }),
    ...(typeof requestState === 'string' ? { requestState } : {}),
    ...(clientCapabilities ? { clientCapabilities: clientCapabilities as Record<string, unknown> } : {}),
  };
}
