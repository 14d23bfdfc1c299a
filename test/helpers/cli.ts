import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built CLI: tests run what `npx mcpkit` runs. */
export const CLI = fileURLToPath(new URL('../../dist/bin/main.js', import.meta.url));

/** A temp world for one test: a project dir as cwd and HOME / XDG / MCPKIT_CONFIG_DIR inside it. */
export interface Workspace {
  root: string;
  project: string;
  home: string;
  xdg: string;
  userDir: string;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/** Creates a workspace; call `cleanup` in afterEach. */
export async function createWorkspace(): Promise<Workspace> {
  const root = await mkdtemp(join(tmpdir(), 'mcpkit-test-'));
  const project = join(root, 'project');
  const home = join(root, 'home');
  const xdg = join(home, '.config');
  const userDir = join(root, 'mcpkit-user');
  await Promise.all([mkdir(project), mkdir(xdg, { recursive: true })]);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_CONFIG_HOME: xdg,
    MCPKIT_CONFIG_DIR: userDir,
  };
  return {
    root,
    project,
    home,
    xdg,
    userDir,
    env,
    cleanup: () => rm(root, { recursive: true, force: true, maxRetries: 5 }),
  };
}

/** What a CLI run printed and returned. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `mcpkit` in the workspace's project dir with its environment (plus `env`). */
export function runCli(
  ws: Workspace,
  args: string[],
  env: Record<string, string> = {},
  // stdin: text written and ended; `{ open: true }` a pipe left open, as a client that has not left (a stdio
  // gateway stops when its client closes stdin, even while it starts — so an error of start-up needs it open).
  options: { stdin?: string | { open: true }; onSpawn?: (child: ChildProcess) => void } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ws.project,
      env: { ...ws.env, ...env },
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (typeof options.stdin === 'string') child.stdin?.end(options.stdin);
    options.onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
