import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, type ClientCapabilities } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { ServerEntry } from '../../src/config/index.js';
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
  const notifications: GatewayClient['notifications'] = [];
  for (const method of [
    'notifications/tools/list_changed',
    'notifications/prompts/list_changed',
    'notifications/resources/list_changed',
    'notifications/message',
  ] as const) {
    client.setNotificationHandler(method, (note) => {
      notifications.push({ method, params: note.params });
    });
  }
  await client.connect(transport, { timeout: 30_000 });
  return {
    client,
    transport,
    stderr: () => stderr,
    notifications,
    close: () => client.close(),
  };
}

export const textOf = (result: { content?: unknown }) =>
  ((result.content as { type: string; text?: string }[] | undefined) ?? []).map((c) => c.text ?? '').join('');
