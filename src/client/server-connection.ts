import { type Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { expandServerEntry, type ServerEntry } from '../config/index.js';
import { McpkitError } from '../errors/index.js';
import { findNeedsLogin } from './auth/needs-login.js';
import { type RemoteAuth, remoteAuthFor } from './auth/remote-auth.js';
import {
  type ConnectAttempt,
  type ConnectPlan,
  connectPlanFor,
  connectWithFallbacks,
} from './connect-plan.js';
import type { ConnectionContext } from './connection-context.js';
import type { RetryNotice } from './network-retry.js';
import { ProgressRouter } from './progress-router.js';
import { RawRelay } from './raw-relay.js';
import { createRelayPort, type RawRelayPort } from './relay-port.js';
import { RequestRunner } from './request-runner.js';
import { createSdkClient, listenForChanges } from './sdk-client.js';
import type { ServerFailure, ServerHandle, ServerStatus } from './server-handle.js';
import { type ListCache, type RequestChannel, ServerRequests } from './server-requests.js';
import {
  causeOf,
  closeFailedTransport,
  configFailure,
  ServerStartError,
  type StartFacts,
  startFailure,
} from './start-failure.js';
import { StdioTransport } from './stdio-transport.js';
import { openTransport } from './transports.js';

/** Makes the transport of one connect attempt: the Runtime's seam for in-process servers and tests. */
export type TransportFactory = (attempt: ConnectAttempt) => Transport;

/**
 * One server's connection, internal to the Runtime: its transport, the SDK client on it, the start with
 * fallbacks, failure bookkeeping and shutdown. Users get its {@link ServerHandle}; the gateway its
 * {@link RawRelayPort}.
 */
export class ServerConnection implements RequestChannel {
  status: ServerStatus = 'starting';
  failure: ServerFailure | undefined;
  client: Client | undefined;
  readonly lists: ListCache = {};
  readonly progress = new ProgressRouter();
  readonly handle: ServerHandle = new ServerRequests(this);
  private transport: Transport | undefined;
  private relay: RawRelay | undefined;
  private readonly port: RawRelayPort;
  private readonly plan: ConnectPlan;
  private readonly runner: RequestRunner;
  /** The expanded entry, the attempt that connected and the startup timeout, for a reconnect. */
  private connected?: { entry: ServerEntry; attempt: ConnectAttempt; timeoutMs: number };
  /** OAuth for a remote server (made from the expanded entry at the first start). */
  private auth: RemoteAuth | undefined;
  /** Ends a start in progress: `close()` while starting must neither wait for it nor let it retry. */
  private abortStart: (() => void) | undefined;

  constructor(
    readonly id: string,
    readonly entry: ServerEntry,
    readonly ctx: ConnectionContext,
    private readonly transportFactory?: TransportFactory,
  ) {
    this.plan = connectPlanFor(entry);
    this.port = createRelayPort({
      liveRelay: () => (this.status === 'ready' ? this.relay : undefined),
      client: () => this.client,
      timeoutMs: () => this.entry.timeout ?? this.ctx.requestTimeoutMs,
      clientInfo: ctx.clientInfo,
      handlers: ctx.handlers,
    });
    this.runner = new RequestRunner({
      ready: () => this.ready(),
      isReady: () => this.status === 'ready',
      canReinitialize: () => this.plan !== 'stdio',
      reconnect: () => this.reconnect(),
    });
  }

  /**
   * Connects within `timeoutMs`; on failure the status is `failed` and a ServerStartError is thrown. A
   * server that needs an OAuth login gets one first when the Runtime can show it (then the timeout starts
   * again); otherwise it fails with "needs a login".
   */
  async start(timeoutMs: number, afterLogin = false): Promise<void> {
    let entry: ServerEntry;
    try {
      entry = expandServerEntry(this.id, this.entry, this.ctx.env);
    } catch (error) {
      throw this.fail(configFailure(error), error);
    }
    if (!this.transportFactory) this.auth ??= remoteAuthFor(this.id, entry, this.ctx.auth);
    let loginFirst = false;
    const deadline = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      deadline.abort();
    }, timeoutMs);
    this.abortStart = () => deadline.abort();
    let lastRetry: RetryNotice | undefined;
    try {
      // The SDK's probe keeps its own timers; the deadline wins regardless.
      const expired = new Promise<never>((_, reject) =>
        deadline.signal.addEventListener('abort', () => reject(new Error('startup timeout'))),
      );
      const connecting = connectWithFallbacks(this.plan, {
        signal: deadline.signal,
        attempt: (attempt) => this.connect(entry, attempt, deadline.signal),
        ended: () => this.transport instanceof StdioTransport && this.transport.exited,
        onRetry: (notice) => {
          lastRetry = notice;
          const { attempt, attempts, delayMs } = notice;
          const cause = causeOf(notice.error, urlOf(entry));
          this.ctx.emit('server_retrying', { server: this.id, attempt, attempts, delayMs, cause });
        },
      });
      connecting.catch(() => undefined); // may settle after the deadline won
      const attempt = await Promise.race([connecting, expired]);
      this.connected = { entry, attempt, timeoutMs };
    } catch (error) {
      const facts: StartFacts = {
        error,
        timeoutMs,
        timedOut,
        url: urlOf(entry),
        ...(await closeFailedTransport(this.transport)),
      };
      if (lastRetry) {
        facts.lastRetryError = lastRetry.error;
        facts.attempts = lastRetry.attempt + 1;
      }
      if (this.status === 'stopped') {
        throw new McpkitError('SERVER_UNAVAILABLE', `server "${this.id}" was stopped while starting`, {
          server: this.id,
        });
      }
      loginFirst = !afterLogin && this.auth?.canLogIn === true && findNeedsLogin(error) !== undefined;
      if (!loginFirst) throw this.fail(startFailure(facts), error);
    } finally {
      clearTimeout(timer);
      this.abortStart = undefined;
    }
    if (loginFirst) return this.logInThenStart(timeoutMs);
    if (this.status !== 'starting') return; // closed while starting
    this.status = 'ready';
    const { protocolVersion, serverInfo } = this.handle;
    this.ctx.emit('server_started', { server: this.id, protocolVersion, serverName: serverInfo?.name });
  }

  private async logInThenStart(timeoutMs: number): Promise<void> {
    const stop = new AbortController();
    this.abortStart = () => stop.abort(new Error('stopped'));
    try {
      await this.auth?.logIn(stop.signal);
    } catch (error) {
      if (this.status === 'stopped')
        throw new McpkitError('SERVER_UNAVAILABLE', `server "${this.id}" was stopped while logging in`, {
          server: this.id,
        });
      // Nobody could show the URL after all (a gateway with no client that opens URLs): needs a login.
      const needs = findNeedsLogin(error);
      const message =
        needs?.detail ?? `login failed: ${error instanceof Error ? error.message : String(error)}`;
      throw this.fail({ category: 'auth', message }, error);
    } finally {
      this.abortStart = undefined;
    }
    return this.start(timeoutMs, true);
  }

  /** One connect attempt on a fresh transport (the previous one, if any, is closed first). */
  private async connect(entry: ServerEntry, attempt: ConnectAttempt, signal: AbortSignal): Promise<void> {
    if (this.client) this.client.onclose = () => undefined; // replacing it is not a failure
    await this.transport?.close().catch(() => undefined);
    const transport =
      this.transportFactory?.(attempt) ??
      openTransport(entry, {
        parentEnv: this.ctx.env,
        server: this.id,
        onStderrLine: (line) => this.ctx.emit('stderr', { server: this.id, line }),
        legacySse: attempt.wire === 'sse',
        auth: this.auth,
      });
    this.transport = transport;
    const client = createSdkClient(this.id, this.ctx, (list) => {
      if (list === 'tools') delete this.lists.tools;
    });
    this.client = client;
    await client.connect(transport, {
      signal,
      timeout: this.ctx.requestTimeoutMs,
      ...(attempt.handshake === 'initialize' ? { prior: { kind: 'legacy' as const } } : {}),
    });
    listenForChanges(client, this.ctx.requestTimeoutMs);
    this.progress.attach(transport);
    this.relay?.failAll('the connection was replaced');
    this.relay = undefined;
    // Stdio and Streamable HTTP relay (a legacy SSE server, already rare, goes through the SDK client).
    if (transport instanceof StdioTransport || transport instanceof StreamableHTTPClientTransport) {
      this.relay = new RawRelay(transport);
      this.relay.attach();
    }
    client.onclose = () => this.onClosed();
  }

  /** A new session on a fresh transport, the way the first one connected. */
  private async reconnect(): Promise<void> {
    const connected = this.connected;
    if (!connected) throw new Error('not connected');
    const attempt: ConnectAttempt = { wire: connected.attempt.wire, handshake: 'negotiate' };
    await this.connect(connected.entry, attempt, AbortSignal.timeout(connected.timeoutMs));
    delete this.lists.tools;
  }

  private onClosed(): void {
    if (this.status !== 'ready') return;
    const stderr = this.transport instanceof StdioTransport ? this.transport.recentStderr.slice(-3) : [];
    const detail = stderr.length > 0 ? `; last stderr: ${stderr.join(' | ')}` : '';
    const message = `connection closed${detail}`;
    this.status = 'failed';
    this.failure = { category: 'transport_closed', message };
    const error = new McpkitError('SERVER_UNAVAILABLE', `server "${this.id}" ${message}`, {
      server: this.id,
    });
    this.runner.failAll(error);
    this.relay?.failAll(error.message);
    this.ctx.emit('server_failed', { server: this.id, category: 'transport_closed', message });
  }

  private fail(failure: ServerFailure, cause: unknown): ServerStartError {
    this.status = 'failed';
    this.failure = failure;
    this.ctx.emit('server_failed', { server: this.id, ...failure });
    return new ServerStartError(this.id, failure.category, failure.message, cause);
  }

  ready(): Client {
    if (this.status === 'ready' && this.client) return this.client;
    const why = this.failure ? `: ${this.failure.message}` : '';
    throw new McpkitError('SERVER_UNAVAILABLE', `server "${this.id}" is ${this.status}${why}`, {
      server: this.id,
    });
  }

  run<T>(request: (client: Client) => Promise<T>): Promise<T> {
    return this.runner.run(request);
  }

  /** The raw relay, while the server is ready and its transport can relay (stdio, Streamable HTTP). */
  relayPort(): RawRelayPort | undefined {
    return this.status === 'ready' && this.relay ? this.port : undefined;
  }

  /** Stops the server (the shutdown ladder for stdio). Idempotent. */
  async close(): Promise<void> {
    if (this.status === 'stopped') return;
    const wasLive = this.status === 'ready' || this.status === 'starting';
    this.status = 'stopped';
    this.abortStart?.();
    const error = new McpkitError('SERVER_UNAVAILABLE', `server "${this.id}" was stopped`, {
      server: this.id,
    });
    this.runner.failAll(error);
    this.relay?.failAll(error.message);
    await this.client?.close().catch(() => undefined);
    await this.transport?.close().catch(() => undefined);
    if (wasLive) this.ctx.emit('server_stopped', { server: this.id });
  }
}

function urlOf(entry: ServerEntry): string | undefined {
  return 'url' in entry && typeof entry.url === 'string' ? entry.url : undefined;
}
