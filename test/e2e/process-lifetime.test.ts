import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, createWorkspace, runCli, type Workspace } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import {
  childrenOf,
  groupMembers,
  groupsGone,
  hasProcTable,
  isReaper,
  killGroups,
} from '../helpers/process-table.js';
import { alive, fixture } from '../helpers/servers.js';
import type { Ended } from '../helpers/v1-client.js';

/**
 * One-shot commands (`mcpkit call`) against a server that ignores stdin EOF, SIGTERM and SIGINT and has
 * forked a grandchild into its group: however mcpkit ends — SIGKILL (the OOM killer), Ctrl-C before the
 * handshake, Ctrl-C twice — no process of that group may survive; and a daemon the server started (outside
 * its group, holding its stdout/stderr) must not keep mcpkit alive.
 */
const STUBBORN = fixture('servers/stubborn-server.mjs');

interface RunningCli {
  child: ChildProcess;
  exited: Promise<Ended>;
  /** How it ended, once it has. */
  ended?: Ended;
  /** Everything written to stderr so far (the server's own lines too: MCPKIT_SHOW_STDERR=1). */
  stderr: () => string;
}

let ws: Workspace;
/** Groups and pids a test started, killed after a failure so nothing lingers for the next test. */
let groups: number[] = [];
let pids: number[] = [];

beforeEach(async () => {
  ws = await createWorkspace();
});

afterEach(async () => {
  killGroups(groups);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  groups = [];
  pids = [];
  await ws.cleanup();
});

/** Starts the built CLI; `exited` resolves on the exit event (not on its pipes closing). */
function startCli(args: string[]): RunningCli {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ws.project,
    env: { ...ws.env, MCPKIT_SHOW_STDERR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  pids.push(child.pid as number);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdout?.resume();
  const cli: RunningCli = {
    child,
    exited: Promise.resolve({ code: null, signal: null }),
    stderr: () => stderr,
  };
  cli.exited = new Promise<Ended>((resolve) =>
    child.once('exit', (code, signal) => {
      cli.ended = { code, signal };
      resolve(cli.ended);
    }),
  );
  return cli;
}

/** Waits for mcpkit's exit event within a generous budget (the bugs here were 19 s, 28 s or never). */
const exitOf = (cli: RunningCli) => eventually('mcpkit to exit', () => cli.ended, 15_000);

/** The server's group under a running mcpkit, once the server and its grandchild both run. */
async function serverGroup(cli: RunningCli): Promise<number> {
  const leader = await eventually('the server and its grandchild running in one group under mcpkit', () => {
    const [found] = childrenOf(cli.child.pid as number).filter((c) => !isReaper(c));
    return found && groupMembers(found.pid).length === 2 ? found : undefined;
  });
  groups.push(leader.pid);
  return leader.pid;
}

const until = (cli: RunningCli, text: string) =>
  eventually(`mcpkit to print ${JSON.stringify(text)} on stderr`, () =>
    cli.stderr().includes(text) ? true : undefined,
  );

describe.skipIf(!hasProcTable)('mcpkit call: no process of the server group outlives mcpkit', () => {
  it('SIGKILL mid-call: the reaper kills the whole group (server and grandchild)', async () => {
    const cli = startCli(['call', 'hang', '--', process.execPath, STUBBORN]);
    const group = await serverGroup(cli);
    await until(cli, 'hanging');
    cli.child.kill('SIGKILL');
    await cli.exited;
    await groupsGone([group]);
  });

  it('SIGKILL of mcpkit and its reaper: the next mcpkit that starts a server sweeps the group', async () => {
    const cli = startCli(['call', 'hang', '--', process.execPath, STUBBORN]);
    const group = await serverGroup(cli);
    await until(cli, 'hanging');
    const reaper = await eventually('the reaper under mcpkit', () =>
      childrenOf(cli.child.pid as number).find(isReaper),
    );
    process.kill(reaper.pid, 'SIGKILL');
    await eventually('the reaper to exit', () => (alive(reaper.pid) ? undefined : true));
    cli.child.kill('SIGKILL');
    await cli.exited;
    // Orphaned for now: nothing watched it.
    expect(groupMembers(group)).toHaveLength(2);
    const next = await runCli(ws, ['tools', '--', process.execPath, STUBBORN]);
    expect(next.code).toBe(0);
    await groupsGone([group]);
  });

  it('Ctrl-C before the handshake: exits 130 at once and the group is gone', async () => {
    const cli = startCli(['call', 'pids', '--', process.execPath, STUBBORN, '--silent']);
    const group = await serverGroup(cli);
    cli.child.kill('SIGINT');
    // Without the abort reaching start-up this waited for the 30 s start timeout.
    expect(await exitOf(cli)).toEqual({ code: 130, signal: null });
    expect(cli.stderr()).toContain('cancelled');
    await groupsGone([group]);
  });

  it('a second Ctrl-C during the shutdown ladder SIGKILLs the group', async () => {
    const cli = startCli(['call', 'hang', '--', process.execPath, STUBBORN]);
    const group = await serverGroup(cli);
    await until(cli, 'hanging');
    cli.child.kill('SIGINT');
    // The ladder's first step (stdin closed) has happened; SIGTERM and SIGKILL are yet to come.
    await until(cli, 'stdin ended');
    cli.child.kill('SIGINT');
    const ended = await exitOf(cli);
    // Killed by the second SIGINT, as a program without handlers would be (a shell shows 130 either way).
    expect(ended.signal === 'SIGINT' || ended.code === 130).toBe(true);
    await groupsGone([group]);
  });

  it('a daemon holding the server’s stdout/stderr does not keep mcpkit alive, nor outlives it', async () => {
    const pidFile = join(ws.root, 'daemon.pid');
    const cli = startCli(['call', 'pids', '--', process.execPath, STUBBORN, '--daemon', pidFile]);
    const daemon = Number(
      await eventually('the daemon to write its pid file', () =>
        readFile(pidFile, 'utf8').catch(() => undefined),
      ),
    );
    pids.push(daemon);
    expect(alive(daemon)).toBe(true);
    expect(await exitOf(cli)).toEqual({ code: 0, signal: null });
    // It left the group (setsid), but carries the server's mark in its environment (issue 34).
    expect(alive(daemon)).toBe(false);
  });
});
