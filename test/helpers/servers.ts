import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { StdioServer } from '../../src/config/index.js';
import { freePort } from './ports.js';
import { processState } from './process-table.js';

export { freePort };

const moduleFile = (path: string) => fileURLToPath(new URL(`../../node_modules/${path}`, import.meta.url));
export const fixture = (path: string) => fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url));

/** The reference servers from npm, run with this Node. */
export const everything: StdioServer = {
  command: process.execPath,
  args: [moduleFile('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
};
export const memory: StdioServer = {
  command: process.execPath,
  args: [moduleFile('@modelcontextprotocol/server-memory/dist/index.js')],
};
/** server-everything as argv words (for `mcpkit call … -- <words>`). */
export const everythingWords = [everything.command, ...(everything.args ?? [])];
export function filesystem(dir: string): StdioServer {
  return {
    command: process.execPath,
    args: [moduleFile('@modelcontextprotocol/server-filesystem/dist/index.js'), dir],
  };
}

/** The misbehaving raw fixture server, with its options. */
export function rawServer(...options: string[]): StdioServer {
  return { command: process.execPath, args: [fixture('servers/raw-server.mjs'), ...options] };
}

/** The raw server behind a forking wrapper. */
export function wrappedRawServer(...options: string[]): StdioServer {
  return { command: process.execPath, args: [fixture('servers/wrapper.mjs'), ...options] };
}

/** server-everything over HTTP (`streamableHttp` or `sse`), started and ready; `stop()` in a finally. */
export async function startEverythingHttp(mode: 'streamableHttp' | 'sse', knownPort?: number) {
  const port = knownPort ?? (await freePort());
  const child: ChildProcess = spawn(
    process.execPath,
    [moduleFile('@modelcontextprotocol/server-everything/dist/index.js'), mode],
    { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`everything ${mode} did not start`)), 15_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      if (/listening|running/i.test(chunk.toString())) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`everything ${mode} exited with ${code}`)));
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    url: mode === 'sse' ? `${base}/sse` : `${base}/mcp`,
    stop: () => {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    },
  };
}

/** True while a process with this pid runs (a zombie does not). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie answers kill(pid, 0) until its parent reaps it; an orphan's parent is init, which in some
  // containers and VMs reaps seconds later. It runs nothing any more: not alive.
  return processState(pid) !== 'Z';
}

/** The session fixture server (2025 Streamable HTTP with sessions); `stop()` in a finally. */
export function startSessionServer(): Promise<{ url: string; base: string; stop: () => void }> {
  return startUrlPrintingServer('servers/session-http-server.mjs');
}

/**
 * A fixture server that serves HTTP on 127.0.0.1 and prints its port or endpoint URL as its first line of
 * stdout, started in its own process group; `stop()` (in a finally) kills the group.
 */
export async function startUrlPrintingServer(
  file: string,
  ...args: string[]
): Promise<{ url: string; base: string; stop: () => void }> {
  const child = spawn(process.execPath, [fixture(file), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  const printed = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
  const url = /^\d+$/.test(printed) ? `http://127.0.0.1:${printed}/mcp` : printed;
  return {
    url,
    base: new URL(url).origin,
    stop: () => {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    },
  };
}

/** `mcpkit bridge <contract> --transport http`, started; resolves its URL from the line it logs. */
export function startBridgeHttp(contract: string): Promise<{ url: string; stop: () => void }> {
  return startServingCli(['bridge', contract, '--transport', 'http']);
}

/** A serving `mcpkit` command (bridge, gateway) over HTTP; resolves the URL from its "serving … on URL" line. */
export async function startServingCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ url: string; stop: () => void }> {
  const cli = fileURLToPath(new URL('../../dist/bin/main.js', import.meta.url));
  const child = spawn(process.execPath, [cli, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /serving(?: \S+)? on (\S+)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`mcpkit ${args[0]} exited with ${code}: ${stderr}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}
