import type { ChildProcess } from 'node:child_process';
// The SDK v1 client: what users' scripts and many MCP clients run.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** How a spawned server ended. */
export interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A stdio server started and connected by the SDK v1 client, with its process for step-by-step closes. */
export interface V1Session {
  client: Client;
  child: ChildProcess;
  /** Resolves when the server process exits. */
  exited: Promise<Ended>;
}

/** Starts `node <args>` in `cwd` and connects the SDK v1 client to it (the 2025 handshake). */
export async function connectV1(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<V1Session> {
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd, env, stderr: 'pipe' });
  const client = new Client({ name: 'mcpkit-test-v1', version: '1.0.0' });
  await client.connect(transport, { timeout: 30_000 });
  // The v1 transport keeps its process private; tests need it to run a client's close sequence step by step.
  const child = (transport as unknown as { _process: ChildProcess })._process;
  const exited = new Promise<Ended>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return { client, child, exited };
}
