import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The one place mcpkit starts processes. Every child leads its own process group (`detached`), so a
 * signal to the group reaches what it forked too (npx → node, `sh -c`, wrapper scripts), and every live
 * group is killed when mcpkit exits, however it exits.
 */
export type GroupChild = ChildProcessByStdio<Writable, Readable, Readable>;

/** How to start a child. No shell ever: `command` and `args` go to the OS as they are. */
export interface SpawnGroupOptions {
  cwd?: string;
  env: Record<string, string>;
}

const live = new Set<GroupChild>();
let exitHookInstalled = false;

/** Starts `command` in a new process group with piped stdio. Errors (ENOENT…) arrive as the `error` event. */
export function spawnGroup(command: string, args: readonly string[], options: SpawnGroupOptions): GroupChild {
  installExitHook();
  const child = spawn(command, [...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
    shell: false,
    windowsHide: true,
  });
  live.add(child);
  // The group can outlive its leader (a wrapper that exits, leaving its child); keep tracking it until
  // the group is gone, so the exit hook still reaches it.
  child.once('exit', () => {
    if (!groupAlive(child)) live.delete(child);
  });
  child.once('error', () => live.delete(child));
  return child;
}

/** Sends `signal` to the child's whole process group; false when there is no such group any more. */
export function signalGroup(child: GroupChild, signal: NodeJS.Signals): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** True while any process of the child's group is alive. */
export function groupAlive(child: GroupChild): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The grace periods of the shutdown ladder. */
export interface StopOptions {
  /** After closing stdin, how long the server may take to exit on its own. Default 2000 ms. */
  stdinGraceMs?: number;
  /** After SIGTERM to the group, how long before SIGKILL. Default 2000 ms. */
  termGraceMs?: number;
}

/**
 * Stops a child and its whole group: close stdin (a well-behaved MCP server exits on EOF) → wait →
 * SIGTERM to the group → wait → SIGKILL to the group. Resolves when no process of the group is left.
 */
export async function stopGroup(child: GroupChild, options: StopOptions = {}): Promise<void> {
  const stdinGrace = options.stdinGraceMs ?? 2000;
  const termGrace = options.termGraceMs ?? 2000;
  child.stdin.end();
  child.stdin.destroy();
  if (await waitForGroupExit(child, stdinGrace)) return finish(child);
  signalGroup(child, 'SIGTERM');
  if (await waitForGroupExit(child, termGrace)) return finish(child);
  signalGroup(child, 'SIGKILL');
  await waitForGroupExit(child, 5000);
  finish(child);
}

function finish(child: GroupChild): void {
  live.delete(child);
}

/** Polls until the group is gone (the leader's exit alone is not enough: grandchildren count). */
async function waitForGroupExit(child: GroupChild, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 50)) {
    const leaderGone = child.exitCode !== null || child.signalCode !== null;
    if (leaderGone && !groupAlive(child)) return true;
    if (Date.now() >= deadline) return false;
    await sleep(wait);
  }
}

/** SIGKILLs every live group; runs synchronously from the process `exit` event. */
export function killAllGroups(): void {
  for (const child of live) signalGroup(child, 'SIGKILL');
  live.clear();
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', killAllGroups);
}
