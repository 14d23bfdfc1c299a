import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type ClientCapabilities, InMemoryTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { McpServer, type Server } from '@modelcontextprotocol/server';
import { onTestFinished } from 'vitest';
import * as z from 'zod';
import type { RuntimeServerConfig } from '../../src/client/index.js';
import type { ServerEntry, StdioServer } from '../../src/config/index.js';
import { Gateway, type GatewayOptions } from '../../src/gateway/index.js';
import { CLI, type Workspace } from './cli.js';

export { eventually } from './eventually.js';

import { fixture } from './servers.js';

/** The gateway-upstream fixture under a name (its resources are `<name>://…`). */
export function upstream(name: string, env: Record<string, string> = {}): ServerEntry {
  return {
    command: process.execPath,
    args: [fixture('servers/gateway-upstream.mjs')],
    env: { UPSTREAM_NAME: name, ...env },
  };
}

/** Writes the project's `.mcp.json`. */
export async function writeProjectConfig(ws: Workspace, servers: Record<string, unknown>): Promise<void> {
  await writeFile(join(ws.project, '.mcp.json'), `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`);
}

/** A client connected to `mcpkit gateway …` over stdio, with what it received. */
export interface GatewayClient {
  client: Client;
  transport: StdioClientTransport;
  /** Everything the gateway wrote to stderr so far. */
  stderr(): string;
  /** Notification methods received, in order. */
  notifications: { method: string; params?: unknown }[];
  close(): Promise<void>;
}

/** Starts `mcpkit gateway` in the workspace and connects an SDK client (2025 handshake unless `modern`). */
export async function connectGateway(
  ws: Workspace,
  args: string[] = [],
  options: { capabilities?: ClientCapabilities; modern?: boolean } = {},
): Promise<GatewayClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'gateway', ...args],
    cwd: ws.project,
    env: ws.env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client(
    { name: 'gateway-test', version: '1' },
    {
      capabilities: options.capabilities ?? {},
      ...(options.modern ? { versionNegotiation: { mode: 'auto' as const } } : {}),
    },
  );
  const notifications = recordNotifications(client);
  await client.connect(transport, { timeout: 30_000 });
  return {
    client,
    transport,
    stderr: () => stderr,
    notifications,
    close: () => client.close(),
  };
}

/** The list changes and log messages `client` receives, in order, by method. */
function recordNotifications(client: Client): { method: string; params?: unknown }[] {
  const notifications: { method: string; params?: unknown }[] = [];
  for (const method of [
    'notifications/tools/list_changed',
    'notifications/prompts/list_changed',
    'notifications/resources/list_changed',
    'notifications/resources/updated',
    'notifications/message',
  ] as const) {
    client.setNotificationHandler(method, (note) => {
      notifications.push({ method, params: note.params });
    });
  }
  return notifications;
}

export const textOf = (result: { content?: unknown }) =>
  ((result.content as { type: string; text?: string }[] | undefined) ?? []).map((c) => c.text ?? '').join('');

// ---- In-process gateways: upstreams and clients over the SDK's linked in-memory transports ----

/** An upstream served in this process: each connect builds a fresh server from `build`. */
export function inProcessUpstream(
  name: string,
  build: () => McpServer | Server,
  entry: Partial<StdioServer> = {},
): RuntimeServerConfig {
  return {
    name,
    entry: { command: 'in-process', ...entry },
    transport: () => {
      const [client, server] = InMemoryTransport.createLinkedPair();
      void build().connect(server);
      return client;
    },
  };
}

/** An in-process upstream with these tools; each returns `<server>:<tool> <arguments as JSON>`. */
export function toolServer(
  name: string,
  tools: Record<string, string>,
  entry: Partial<StdioServer> = {},
): RuntimeServerConfig {
  return inProcessUpstream(
    name,
    () => {
      const server = new McpServer({ name, version: '1.0.0' });
      for (const [tool, description] of Object.entries(tools))
        server.registerTool(tool, { description, inputSchema: z.object({}).passthrough() }, async (args) => ({
          content: [{ type: 'text', text: `${name}:${tool} ${JSON.stringify(args)}` }],
        }));
      return server;
    },
    entry,
  );
}

/** A gateway over these server configs, with its pins and tasks in a fresh temporary directory and its log kept. */
export async function startGateway(
  servers: RuntimeServerConfig[],
  options: Partial<GatewayOptions> = {},
): Promise<{ gateway: Gateway; log: string[]; dir: string; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'mcpkit-gw-'));
  const log: string[] = [];
  const gateway = await Gateway.create({
    servers,
    pinFile: join(dir, 'pins.json'),
    taskFile: join(dir, 'gateway-tasks.json'),
    log: (message) => log.push(message),
    ...options,
  }).catch(async (error: unknown) => {
    // A gateway that refuses to start (colliding names) leaves no temp dir behind either.
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  return {
    gateway,
    log,
    dir,
    close: async () => {
      await gateway.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A 2025-era SDK client connected to the gateway in-process, with the notifications it received. */
export interface InProcessClient {
  client: Client;
  notifications: { method: string; params?: unknown }[];
  close(): Promise<void>;
}

/** Connects an SDK client to a gateway over linked in-memory transports (the 2025 handshake). */
export async function connectInProcess(
  gateway: Pick<Gateway, 'factory'>,
  options: { name?: string; capabilities?: ClientCapabilities } = {},
): Promise<InProcessClient> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = await gateway.factory({ era: 'legacy' });
  await server.connect(serverSide);
  const client = new Client(
    { name: options.name ?? 'in-process-test', version: '1' },
    { capabilities: options.capabilities ?? {} },
  );
  const notifications = recordNotifications(client);
  await client.connect(clientSide);
  return { client, notifications, close: () => client.close() };
}

/** {@link startGateway}, closed (and its temp dir removed) when the running test finishes. */
export async function gatewayOf(...args: Parameters<typeof startGateway>): ReturnType<typeof startGateway> {
  const started = await startGateway(...args);
  onTestFinished(started.close);
  return started;
}

/** {@link connectInProcess}, closed when the running test finishes (before the gateway it talks to). */
export async function clientOf(...args: Parameters<typeof connectInProcess>): Promise<InProcessClient> {
  const client = await connectInProcess(...args);
  onTestFinished(client.close);
  return client;
}

/** The tool names a connected client lists, in the gateway's order. */
export const toolNames = async (connected: { client: Client }) =>
  (await connected.client.listTools()).tools.map((t) => t.name);

/** How many `tools/list_changed` notifications a connected client has received. */
export const listChanges = (connected: { notifications: { method: string }[] }) =>
  connected.notifications.filter((n) => n.method === 'notifications/tools/list_changed').length;
