import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { dropRecord, recordGroup, sweepOrphanedGroups } from './group-record.js';
import { GROUP_TOKEN_VARIABLE, groupChain, killMarked, newGroupToken, ofOwner } from './group-token.js';
import { groupMemberStats } from './proc-stat.js';
import { startReaper, tellReaper } from './reaper.js';

/**
 * The one place mcpkit starts processes. Every child leads its own process group (`detached`), so a
 * signal to the group reaches what it forked too (npx → node, `sh -c`, wrapper scripts), and every live
 * group is SIGKILLed when mcpkit exits (the CLI's signals end in an exit too: `signals.ts`). What left the
 * group (`setsid`, a daemon) is found by the token in its environment (`group-token.ts`) when its group is
 * stopped and at exit. On SIGKILL of mcpkit itself nothing runs here: the reaper (`reaper.ts`, started
 * with the first group) kills the groups and the marked then, and if it was killed too, the groups are in
 * a record (`group-record.ts`) that the next mcpkit sweeps when it starts its first process.
 */
export type GroupChild = ChildProcessByStdio<Writable, Readable, Readable>;

/** How to start a child. No shell ever: `command` and `args` go to the OS as they are. */
export interface SpawnGroupOptions {
  cwd?: string;
  env: Record<string, string>;
}

const live = new Set<GroupChild>();
/** Each live child's token (its environment's mark), to find what left its group once it is stopped. */
const tokens = new WeakMap<GroupChild, string>();
let exitHookInstalled = false;

/** Starts `command` in a new process group with piped stdio. Errors (ENOENT…) arrive as the `error` event. */
export function spawnGroup(command: string, args: readonly string[], options: SpawnGroupOptions): GroupChild {
  installExitHook();
  const token = newGroupToken();
  const child = spawn(command, [...args], {
    cwd: options.cwd,
    env: { ...options.env, [GROUP_TOKEN_VARIABLE]: groupChain(token) },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
    shell: false,
    windowsHide: true,
  });
  live.add(child);
  tokens.set(child, token);
  if (child.pid !== undefined) {
    tellReaper('+', child.pid);
    recordGroup('+', child.pid);
  }
  // The group can outlive its leader (a wrapper that exits, leaving its child); keep tracking it until
  // the group is gone, so the exit hook still reaches it.
  child.once('exit', () => {
    if (groupAlive(child)) watchUntilGone(child);
    else {
      forget(child);
      void releaseAfterDrain(child);
    }
  });
  child.once('error', () => forget(child));
  return child;
}

/**
 * A group whose leader exited while the rest runs on, and that nobody stops (a bridge call's group, which
 * the runner only signals): tracked until it is gone, then forgotten, so that no SIGKILL (ours at exit, the
 * reaper's) is ever sent to its pgid after the number could have been reused.
 */
function watchUntilGone(child: GroupChild): void {
  const timer = setInterval(() => {
    if (live.has(child) && groupAlive(child)) return;
    clearInterval(timer);
    if (!live.has(child)) return; // stopped or killed meanwhile, by whoever did
    forget(child);
    void releaseAfterDrain(child);
  }, 1000);
  timer.unref();
}

/** The group is gone (or killed): stop tracking it, here and in the reaper. */
function forget(child: GroupChild): void {
  if (!live.delete(child)) return;
  if (child.pid === undefined) return;
  tellReaper('-', child.pid);
  recordGroup('-', child.pid);
}

/**
 * Starts the reaper now rather than with the first group: a server that is SIGKILLed while its first
 * children start orphans none of them. Idempotent.
 */
export function reapGroupsOnAbruptExit(): void {
  installExitHook();
}

function livePgids(): number[] {
  return [...live].flatMap((child) => (child.pid === undefined ? [] : [child.pid]));
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

/**
 * True while any process of the child's group is alive. Zombies are not: a killed grandchild whose parent
 * died waits for init to reap it, and some inits (containers, micro-VMs) take seconds to, while a
 * signal to the group already finds it.
 */
export function groupAlive(child: GroupChild): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, 0);
  } catch {
    return false;
  }
  return hasLiveMember(child.pid);
}

/** Whether /proc shows a member of the group that is not a zombie; true where there is no /proc. */
function hasLiveMember(pgid: number): boolean {
  const members = groupMemberStats(pgid);
  return members === undefined || members.length > 0;
}

/** The grace periods of the shutdown ladder. */
export interface StopOptions {
  /** After closing stdin, how long the server may take to exit on its own. Default 400 ms. */
  stdinGraceMs?: number;
  /** After SIGTERM to the group, how long before SIGKILL. Default 300 ms. */
  termGraceMs?: number;
}

/**
 * The default ladder is short because clients give a stdio server 2 s between closing its stdin and
 * SIGTERM (the SDK v1 and Python clients): everything a server runs must be gone well before that. A
 * server that exits on EOF takes milliseconds; one that does not gets SIGTERM, which it may handle.
 */
const DEFAULT_STDIN_GRACE_MS = 400;
const DEFAULT_TERM_GRACE_MS = 300;

/**
 * Stops a child and its whole group: close stdin (a well-behaved MCP server exits on EOF) → wait →
 * SIGTERM to the group → wait → SIGKILL to the group. Resolves when no process of the group is left.
 */
export async function stopGroup(child: GroupChild, options: StopOptions = {}): Promise<void> {
  const stdinGrace = options.stdinGraceMs ?? DEFAULT_STDIN_GRACE_MS;
  const termGrace = options.termGraceMs ?? DEFAULT_TERM_GRACE_MS;
  child.stdin.end();
  child.stdin.destroy();
  if (await waitForGroupExit(child, stdinGrace)) return finish(child);
  signalGroup(child, 'SIGTERM');
  if (await waitForGroupExit(child, termGrace)) return finish(child);
  signalGroup(child, 'SIGKILL');
  await waitForGroupExit(child, 5000);
  return finish(child);
}

/**
 * How long a child's stdout and stderr may take to deliver their last bytes once its group is gone (a
 * start failure quotes the last stderr line). Past it, a process that left the group (a daemon that
 * called setsid) still holds them open, and would keep mcpkit alive for as long as it runs.
 */
const PIPE_DRAIN_MS = 200;

function finish(child: GroupChild): Promise<void> {
  forget(child);
  // What the group started and that left it (a daemon, `setsid`): stopped with it.
  const token = tokens.get(child);
  if (token !== undefined) killMarked((t) => t === token);
  return releaseAfterDrain(child);
}

async function releaseAfterDrain(child: GroupChild): Promise<void> {
  const open = [child.stdout, child.stderr].filter((stream) => !stream.closed);
  if (open.length > 0) {
    let timer: NodeJS.Timeout | undefined;
    const drained = open.map((stream) => new Promise((resolve) => stream.once('close', resolve)));
    const late = new Promise((resolve) => {
      timer = setTimeout(resolve, PIPE_DRAIN_MS);
    });
    await Promise.race([Promise.all(drained), late]);
    clearTimeout(timer);
  }
  releaseStdio(child);
}

/** Closes our ends of the child's pipes, whoever else holds theirs. */
function releaseStdio(child: GroupChild): void {
  child.stdin.destroy();
  child.stdout.destroy();
  child.stderr.destroy();
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

/**
 * SIGKILLs every live group at once, and every process that left one of this process's groups,
 * synchronously (process exit, a hard stop).
 */
export function killAllGroups(): void {
  for (const child of live) {
    signalGroup(child, 'SIGKILL');
    forget(child);
    releaseStdio(child);
  }
  if (exitHookInstalled) killMarked(ofOwner());
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // What a previous mcpkit left when it and its reaper were SIGKILLed: one readdir when there is nothing.
  sweepOrphanedGroups();
  startReaper(livePgids());
  process.on('exit', () => {
    killAllGroups();
    dropRecord();
  });
}
