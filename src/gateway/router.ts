import {
  type CallToolResult,
  type ProtocolEra,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type RawRelayPort, requiresTask, type ServerHandle } from '../client/index.js';
import { isMcpkitError } from '../errors/index.js';
import { failedResult, type ProgressUpdate } from '../serve/index.js';
import type { Catalog, ExposedTool, PrefixMode } from './catalog.js';
import { identityOf } from './deferral.js';
import type { Downstream, Downstreams } from './downstream.js';
import type { Asker, InputFlows } from './input-flows.js';
import { type CallEvents, type CallRecord, outcomeOf } from './observers/call-events.js';
import { asCallToolResult, unavailable, withoutServerInfo } from './relayed.js';
import { CALL_TOOL, TOOL_SEARCH } from './tool-search.js';
import { type InputRound, relayToolCall } from './upstream-relay.js';
import type { Upstreams } from './upstreams.js';

/** The stateless revision: its clients answer an upstream's questions through `input_required`. */
const MODERN = '2026-07-28';

/** How many `input_required` rounds of one call the gateway answers for a 2025 client before it gives up. */
const MAX_INPUT_ROUNDS = 16;

/** One tools/call as the router takes it, from the SDK handler or the fast path. */
export interface RoutedCall {
  /** Aborts when the client cancels (or goes away): the upstream is told to stop. */
  signal?: AbortSignal;
  /** The client the call is for (routes the upstream's elicitation / sampling back to it). */
  downstream?: Downstream;
  /** The SDK's request context, when the SDK serves the call. */
  ctx?: ServerContext;
  /** Who asked, for what `tool_search` reveals (see {@link Deferral}). */
  identity?: string;
  /** Set when the client asked for progress: each upstream update, before the result. */
  progress?: (update: ProgressUpdate) => Promise<void>;
  /** The caller's protocol generation: a 2026-07-28 caller answers `input_required` itself. */
  era?: ProtocolEra;
  /** A 2026-07-28 retry: the answers to what was asked, and the state to echo. */
  round?: InputRound;
  /** Who called, as the HTTP endpoint authenticated it (a bearer token's name). */
  client?: string;
  /** This call as observers see it (set by the router while someone observes). */
  record?: CallRecord;
  /**
   * The call's target as the fast path resolved it ({@link ToolRouter.readyTarget}): the router neither looks
   * the name up again nor asks again whether the upstream takes calls.
   */
  ready?: ReadyTarget;
}

/** A tool and its upstream's connection, found ready: a call's resolution, made once. */
export interface ReadyTarget {
  tool: ExposedTool;
  connection: ServerHandle;
}

/**
 * What the router needs of the tasks room (`gateway/tasks/`), which the gateway hands it: upstream tasks
 * for 2026-07-28 clients of the tasks extension, and a task-only tool followed for a client that cannot
 * take a task.
 */
export interface RouterTasks {
  /** Whether a call of this tool becomes a gateway task for a client with these capabilities. */
  offers(target: ExposedTool, capabilities: unknown, upstreamVersion: string | undefined): boolean;
  /** Runs a call as a gateway task; the extension's `CreateTaskResult`, at once. */
  run(
    call: (
      signal: AbortSignal,
      progress: (update: ProgressUpdate) => Promise<void>,
    ) => Promise<CallToolResult>,
  ): Record<string, unknown>;
  /** An upstream's `CreateTaskResult`, under a new gateway id. */
  adopt(server: string, result: Record<string, unknown>): Record<string, unknown>;
  /** Whether an upstream refused a call because the tool runs only as a task of the extension. */
  wantsExtension(error: { code: number; data?: unknown }): boolean;
  /** Runs such a tool as an upstream task and follows it to its result. */
  follow(
    relay: RawRelayPort,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    progress?: (update: ProgressUpdate) => Promise<void>,
  ): Promise<CallToolResult>;
}

/** What the router needs from its gateway. */
export interface RouterHost {
  catalog(): Promise<Catalog>;
  /** The catalog when it is built now (undefined while it is rebuilt). */
  built(): Catalog | undefined;
  upstreams: Upstreams;
  downstreams: Downstreams;
  /** Where a 2025 upstream's mid-call requests wait for a 2026-07-28 client's answers. */
  inputs: InputFlows;
  prefix: PrefixMode;
  /** Exposed tool names seen before, with their server: a call to one whose server is down says so. */
  known: ReadonlyMap<string, string>;
  /** Upstream tasks handed to 2026-07-28 clients under gateway ids, and task-only tools followed. */
  tasks: RouterTasks;
  /** Answers `tool_search`. */
  toolSearch(catalog: Catalog, args: Record<string, unknown>, identity: string | undefined): CallToolResult;
  /** Set for a profile's router: whether a tool (exposed name, server) is in it; others are unknown tools. */
  admits?(name: string, server: string): boolean;
  /** The profile this router serves, if one. */
  profile?: string;
  /** An upstream's result as the client gets it (too big a text is cut, see `capResult`). */
  capResult?(result: CallToolResult): CallToolResult;
  /** Where calls are reported (the dashboard, the audit log, tracing subscribe there). */
  events?: CallEvents;
}

/**
 * The gateway's one `tools/call`: resolves the exposed name (or `call_tool`'s inner one) to an upstream
 * tool and relays the call there with the caller's signal — raw when the upstream can (no schema pass),
 * through the SDK client when it cannot or when a 2026-07-28 upstream wants input first. Returns the
 * result; a protocol error of the upstream is thrown as a {@link ProtocolError} with its own code; an
 * upstream that is down is a tool error the model can read.
 */
export class ToolRouter {
  constructor(private readonly host: RouterHost) {}

  /**
   * The tool a plain call of `name` goes to and its upstream's connection, when that is known without
   * waiting: the catalog is built and the upstream takes calls. The fast path takes only such calls, and
   * hands this resolution to {@link ToolRouter.call} as `ready`.
   */
  readyTarget(name: string): ReadyTarget | undefined {
    const tool = this.host.built()?.toolsByName.get(name);
    if (!tool) return undefined;
    const { upstreams } = this.host;
    const connection = upstreams.connection(tool.server);
    // Ready first (no side effect), then the refusals `unavailable` also knows of: the call's one question.
    if (connection?.status !== 'ready' || upstreams.unavailable(tool.server) !== undefined) return undefined;
    return { tool, connection };
  }

  /** Serves one tools/call; observers of {@link RouterHost.events} hear of it (nothing is done without any). */
  async call(name: string, args: Record<string, unknown>, call: RoutedCall = {}): Promise<CallToolResult> {
    const events = this.host.events;
    if (!events?.active) return this.route(name, args, call);
    const { profile } = this.host;
    // A 2025 connection's identity is its session number; its client's name says more.
    const client =
      call.client ??
      (call.downstream ? identityOf(call.downstream.server.getClientVersion()) : call.identity);
    const record = events.begin(name, args, { client, profile, era: call.era });
    try {
      const result = await this.route(name, args, { ...call, record });
      events.end(record, { result });
      return result;
    } catch (error) {
      events.end(record, call.signal ? { error, signal: call.signal } : { error });
      throw error;
    }
  }

  private async route(
    name: string,
    args: Record<string, unknown>,
    call: RoutedCall,
  ): Promise<CallToolResult> {
    const { ready } = call;
    if (ready) return this.capped(await this.forward(ready.tool, name, args, call, ready.connection));
    const catalog = this.host.built() ?? (await this.host.catalog());
    let target = catalog.toolsByName.get(name);
    let given = args;
    if (!target && name === TOOL_SEARCH) return this.host.toolSearch(catalog, args, call.identity);
    if (!target && name === CALL_TOOL) {
      if (typeof args.name !== 'string')
        return failedResult(
          `${CALL_TOOL}: "name" must be the name of a tool (as ${TOOL_SEARCH} returned it)`,
        );
      if (
        args.arguments !== undefined &&
        (typeof args.arguments !== 'object' || args.arguments === null || Array.isArray(args.arguments))
      )
        return failedResult(`${CALL_TOOL}: "arguments" must be an object`);
      name = args.name;
      given = (args.arguments as Record<string, unknown> | undefined) ?? {};
      if (call.record) {
        call.record.name = name;
        call.record.args = given;
      }
      target = catalog.toolsByName.get(name);
    }
    if (!target) {
      const missing = this.unresolved(catalog, name);
      if ('result' in missing) return missing.result;
      target = missing.target;
    }
    return this.capped(await this.forward(target, name, given, call));
  }

  private capped(result: CallToolResult): CallToolResult {
    return this.host.capResult ? this.host.capResult(result) : result;
  }

  /** A name the catalog does not serve: why not, or (one upstream under its own names) a guess. */
  private unresolved(catalog: Catalog, name: string): { result: CallToolResult } | { target: ExposedTool } {
    const hidden = catalog.hidden.get(name);
    if (hidden) return { result: failedResult(`Tool ${name} is hidden: ${hidden.reason}`) };
    const outside = (server: string | undefined) =>
      server !== undefined && this.host.admits !== undefined && !this.host.admits(name, server);
    const server = this.host.known.get(name) ?? this.host.upstreams.waitingForLogin(name);
    const down =
      server === undefined || outside(server) ? undefined : this.host.upstreams.unavailable(server);
    if (down) return { result: unavailable(name, down) };
    // A single upstream proxied with its own names answers for unknown tools itself, as it would directly.
    const only = this.host.prefix === 'none' ? this.host.upstreams.onlyWith('tools') : undefined;
    if (only === undefined || outside(only))
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const definition = { name, inputSchema: { type: 'object' as const } };
    return { target: { name, server: only, tool: name, definition, alwaysLoad: false } };
  }

  private async forward(
    target: ExposedTool,
    name: string,
    args: Record<string, unknown>,
    call: RoutedCall,
    ready?: ServerHandle,
  ): Promise<CallToolResult> {
    const { inputs, tasks } = this.host;
    if (call.record) {
      call.record.server = target.server;
      call.record.tool = target.tool;
    }
    const reached = ready ?? this.reach(target.server);
    if ('down' in reached) return unavailable(name, reached.down);
    const connection = reached;
    // A slow tool (one its 2025 upstream runs as a task) becomes the gateway's task for a 2026-07-28 client
    // of the tasks extension.
    if (
      call.era === 'modern' &&
      tasks.offers(target, call.round?.clientCapabilities, connection.protocolVersion)
    ) {
      const identity = call.identity === undefined ? {} : { identity: call.identity };
      return asCallToolResult(
        tasks.run((signal, progress) => this.relay(target, name, args, { signal, progress, ...identity })),
      );
    }
    // A 2026-07-28 client cannot be asked anything mid-call; a 2025 upstream's requests become its rounds.
    if (call.era === 'modern' && connection.protocolVersion !== MODERN) {
      const state = call.round?.requestState;
      if (state !== undefined) return inputs.resume(name, state, call.round?.inputResponses, call.signal);
      const { signal: _first, round: _none, ...rest } = call;
      return inputs.start(
        name,
        call.round?.clientCapabilities,
        (ask, signal) => this.relay(target, name, args, { ...rest, signal }, ask),
        call.signal,
      );
    }
    return this.relay(target, name, args, call, undefined, connection);
  }

  /**
   * The upstream's connection when it takes calls now, or why not. Asked once per call; asked again only
   * for work that starts later (a gateway task, an input flow), when the answer may have changed.
   */
  private reach(server: string): ServerHandle | { down: string } {
    const { upstreams } = this.host;
    const connection = upstreams.connection(server);
    const down = upstreams.unavailable(server);
    if (!connection || down) return { down: down ?? `server "${server}" is not configured` };
    return connection;
  }

  /** The call itself, on the upstream that owns the tool, reported to observers when there are any. */
  private async relay(
    target: ExposedTool,
    name: string,
    args: Record<string, unknown>,
    call: RoutedCall,
    ask?: Asker,
    reached?: ServerHandle,
  ): Promise<CallToolResult> {
    const { record } = call;
    const events = this.host.events;
    if (!record || !events) return this.relayOnce(target, name, args, call, ask, reached);
    const version = (reached ?? this.host.upstreams.connection(target.server))?.protocolVersion;
    events.upstream(record, target.server, target.tool, version);
    try {
      const result = await this.relayOnce(target, name, args, call, ask, reached);
      events.upstreamDone(record, outcomeOf(result));
      return result;
    } catch (error) {
      events.upstreamDone(record, call.signal?.aborted ? 'cancelled' : 'protocol-error');
      throw error;
    }
  }

  /**
   * The call on the upstream (`reached`: its connection as this call found it ready; looked up again for
   * work that started later); its requests go to `ask` when given.
   */
  private async relayOnce(
    target: ExposedTool,
    name: string,
    args: Record<string, unknown>,
    call: RoutedCall,
    ask?: Asker,
    reached: ServerHandle | { down: string } = this.reach(target.server),
  ): Promise<CallToolResult> {
    const { upstreams, downstreams, tasks } = this.host;
    if ('down' in reached) return unavailable(name, reached.down);
    const connection = reached;
    const end =
      call.downstream || ask
        ? downstreams.begin(target.server, { downstream: call.downstream, ctx: call.ctx, ask })
        : () => undefined;
    // Progress goes out before the result: the client drops progress that comes after it.
    const sent: Promise<void>[] = [];
    try {
      // Without progress, the call goes through the raw relay: the upstream's result as it is, no schema pass.
      const relay = call.progress ? undefined : upstreams.relay(target.server);
      // A 2025 client gets an upstream's logs unasked; a 2026-07-28 upstream sends them only when asked.
      const round: InputRound =
        call.era === 'modern'
          ? (call.round ?? {})
          : connection.protocolVersion === MODERN
            ? { logLevel: call.downstream?.logLevel ?? 'debug' }
            : {};
      let relayed = relay && (await relayToolCall(relay, target.tool, args, call.signal, round));
      // A 2025 client cannot take `input_required`: the gateway asks it each input request, as a 2025 upstream
      // would have mid-call, and calls again with the answers and the upstream's state — round after round.
      for (
        let rounds = 1;
        relay && relayed?.kind === 'input' && call.downstream && call.era !== 'modern';
        rounds++
      ) {
        if (rounds > MAX_INPUT_ROUNDS)
          throw new ProtocolError(
            ProtocolErrorCode.InternalError,
            `mcpkit gateway: "${target.server}" asked for input ${MAX_INPUT_ROUNDS} times in one call; stopped`,
          );
        const answered = await this.host.downstreams.answerAll(target.server, relayed.result, call.signal);
        relayed = await relayToolCall(relay, target.tool, args, call.signal, { ...round, ...answered });
      }
      // A tool that runs only as a task: the Runtime runs it as one upstream (see `callToolAsTask`).
      if (relayed?.kind === 'result' && !requiresTask(undefined, asCallToolResult(relayed.result)))
        return asCallToolResult(relayed.result);
      // A 2026-07-28 caller answers the upstream's questions itself and calls again with the answers (the
      // upstream's own state rides along, so the upstream checks it); a 2025 one is asked by the SDK path.
      if (relayed?.kind === 'input' && call.era === 'modern')
        return asCallToolResult({ ...withoutServerInfo(relayed.result, true), resultType: 'input_required' });
      // The upstream made a task of it (the client declared the tasks extension): its id becomes ours.
      if (relayed?.kind === 'task' && call.era === 'modern')
        return asCallToolResult(this.host.tasks.adopt(target.server, relayed.result));
      // A task-only tool of a 2026-07-28 upstream, for a 2025 client (which cannot take such a task): the
      // gateway follows the task. A 2026-07-28 client gets the -32021 and may declare the extension.
      if (relayed?.kind === 'error' && relay && call.era !== 'modern' && tasks.wantsExtension(relayed.error))
        return await tasks.follow(relay, target.tool, args, call.signal, call.progress);
      if (relayed?.kind === 'error') {
        const { code, message, data } = relayed.error;
        // The upstream died during the call: the same answer as a call that found it down.
        if (connection.status !== 'ready') return unavailable(name, message);
        throw new ProtocolError(code, message, data);
      }
      // No relay, progress asked for, or a 2026-07-28 upstream that wants input first (the SDK client knows
      // how to get it and ask again) — with the same signal, so a cancel reaches this call too.
      const progress = call.progress;
      const result = await connection.callTool(target.tool, args, {
        ...(call.signal ? { signal: call.signal } : {}),
        ...(progress ? { onProgress: (update: ProgressUpdate) => void sent.push(progress(update)) } : {}),
      });
      if (sent.length > 0) await Promise.all(sent);
      return result;
    } catch (error) {
      const port =
        call.era !== 'modern' &&
        error instanceof ProtocolError &&
        tasks.wantsExtension(error) &&
        upstreams.relay(target.server);
      if (port) return await tasks.follow(port, target.tool, args, call.signal, call.progress);
      if (error instanceof ProtocolError) throw new ProtocolError(error.code, error.message, error.data);
      if (isMcpkitError(error)) return unavailable(name, error.message);
      throw error;
    } finally {
      end();
    }
  }
}
