import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import {
  Runtime,
  type RuntimeAuthOptions,
  type RuntimeServerConfig,
  type StartupPolicy,
} from '../client/index.js';
import { McpkitError } from '../errors/index.js';
import { onStop } from '../internal/signals.js';
import { createElicitationHandler } from './elicit.js';
import { count, table } from './format.js';
import type { CliIO } from './io.js';
import { cliAuth } from './login-prompt.js';
import { runtimeListeners } from './runtime-listeners.js';
import { CLI_VERSION } from './version.js';

/** One server of a runtime, as the commands see it (named by what `servers()` returns, whatever its type). */
export type RuntimeServer = ReturnType<Runtime['servers']>[number];

/**
 * Runs `work` with a Runtime over the targets; Ctrl-C or SIGTERM aborts the work (cancelling calls) and
 * every server is stopped before returning, whatever happens.
 */
export async function withRuntime(
  io: CliIO,
  targets: RuntimeServerConfig[],
  startupPolicy: StartupPolicy,
  work: (runtime: Runtime, signal: AbortSignal) => Promise<void>,
  auth: RuntimeAuthOptions = cliAuth(io),
): Promise<void> {
  if (targets.length === 0) {
    throw new McpkitError(
      'SERVER_NOT_FOUND',
      'no servers configured; add one with "mcpkit add" or give -- <command…>',
    );
  }
  const controller = new AbortController();
  const unregister = onStop((cause) => controller.abort(cause));
  let runtime: Runtime | undefined;
  try {
    runtime = await Runtime.create({
      servers: targets,
      startupPolicy,
      env: io.env,
      clientInfo: { name: 'mcpkit', version: CLI_VERSION },
      handlers: { elicitation: createElicitationHandler(io) },
      listeners: runtimeListeners(io),
      auth,
      // Ctrl-C before a server's handshake stops it at once, not at the start timeout.
      signal: controller.signal,
    });
    await work(runtime, controller.signal);
  } catch (error) {
    if (controller.signal.aborted) {
      throw new McpkitError('CANCELLED', `cancelled (${String(controller.signal.reason)})`, {
        cause: controller.signal.reason,
      });
    }
    throw error;
  } finally {
    // A second signal while the servers stop is a hard stop (every group SIGKILLed).
    unregister();
    await runtime?.close();
  }
}

/** The one server of a single-target runtime. */
export function only(runtime: Runtime): RuntimeServer {
  const [server] = runtime.servers();
  if (!server) throw new McpkitError('SERVER_NOT_FOUND', 'no server to talk to');
  return server;
}

/** Exit 1 naming the servers that did not start. */
export function failIfAnyFailed(servers: RuntimeServer[]): void {
  const failed = servers.filter((s) => s.status !== 'ready').map((s) => s.id);
  if (failed.length > 0) {
    throw new McpkitError(
      'SERVER_FAILED',
      `${failed.length} of ${count(servers.length, 'server')} failed: ${failed.join(', ')}`,
    );
  }
}

/** The kinds of request a server must declare a capability for. */
export type Offering = 'resources' | 'prompts';

/** True when the server declared the capability (`read` and `prompt` need it; listings say so). */
export function offers(server: RuntimeServer, what: Offering): boolean {
  return server.capabilities?.[what] !== undefined;
}

/** Refuses a request the server does not offer, in one line, before anything is sent. */
export function requireOffering(server: RuntimeServer, what: Offering): void {
  if (!offers(server, what))
    throw new McpkitError(
      'REQUEST_FAILED',
      `server "${server.id}" offers no ${what} (it does not declare the ${what} capability)`,
      { server: server.id },
    );
}

/**
 * Runs one request and turns what the SDK throws into one line: the server's own error message, or the
 * timeout that expired. `what` says what was asked ("tool \"echo\"", "resource demo://x").
 */
export async function request<T>(
  server: RuntimeServer,
  what: string,
  send: () => Promise<T>,
  timeout?: { seconds: number; flag: string },
): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
      const limit = timeout ? `${timeout.seconds} s (${timeout.flag})` : 'the request timeout';
      throw new McpkitError(
        'REQUEST_FAILED',
        `server "${server.id}" did not answer ${what} within ${limit}`,
        { server: server.id, cause: error },
      );
    }
    if (error instanceof ProtocolError) {
      // The SDK's message repeats the code ("MCP error -32602: …"): the server's own words are enough.
      const said = error.message.replace(/^MCP error -?\d+: /, '');
      throw new McpkitError(
        'REQUEST_FAILED',
        `server "${server.id}" refused ${what}: ${said} (${error.code})`,
        { server: server.id, cause: error },
      );
    }
    throw error;
  }
}

/** Table rows indented under a server's heading; nothing when there are none. */
export function rows(cells: string[][]): string {
  return cells.length > 0 ? `${table(cells)}\n` : '';
}
