import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Writable } from 'node:stream';

/**
 * A watchdog for the one end mcpkit cannot handle itself: being SIGKILLed (or crashing in native code).
 * Nothing runs in a process killed that way, and its children only see their stdin close; servers that
 * keep running after EOF (server-everything does, with its timers) would be orphaned for good. The reaper
 * is a small Node process in its own group that mcpkit tells, over a pipe, which process groups it runs;
 * when that pipe closes, mcpkit is gone, and the reaper SIGKILLs every group it was told of, then exits.
 * On a normal exit mcpkit has already killed its groups and the reaper just exits.
 *
 * Every mcpkit that starts a process starts one reaper with it, one-shot commands too (`mcpkit call` is
 * killed by the OOM killer as readily as a gateway). Measured on Linux x64, Node 20: ~60 ms of CPU to
 * start, off the command's critical path (it is not waited for), and 42 MB RSS of which ~7 MB is its own
 * (the rest is the Node binary's pages, shared with mcpkit). `PR_SET_PDEATHSIG` (`setpriv --pdeathsig`)
 * would cost ~1 ms per spawn instead, but reaches only the direct child: a server's grandchildren are
 * orphaned all the same, so it cannot replace this. When the reaper dies with mcpkit, `group-record.ts`
 * is the fallback.
 */
const SOURCE = `
process.title = 'mcpkit-reaper';
const groups = new Set();
let rest = '';
const reap = () => {
  for (const pgid of groups) {
    try { process.kill(-pgid, 'SIGKILL'); } catch {}
  }
  process.exit(0);
};
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  rest += chunk;
  const lines = rest.split('\\n');
  rest = lines.pop();
  for (const line of lines) {
    const pgid = Number(line.slice(1));
    if (!Number.isInteger(pgid) || pgid <= 1) continue;
    if (line[0] === '+') groups.add(pgid);
    else groups.delete(pgid);
  }
});
process.stdin.on('end', reap);
process.stdin.on('error', reap);
`;

/** Shown in `ps`, so a user knows what it is. */
const MARKER = 'mcpkit-reaper';

let reaper: ChildProcessByStdio<Writable, null, null> | undefined;

/** Starts the reaper (once) and tells it the groups that already run. */
export function startReaper(groups: Iterable<number>): void {
  if (reaper) return;
  const child = spawn(process.execPath, ['-e', SOURCE, MARKER], {
    // Its own group: a signal to mcpkit's group (Ctrl-C in a terminal) must not take it along.
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    cwd: '/',
    env: {},
    windowsHide: true,
  });
  reaper = child;
  child.once('error', () => {
    if (reaper === child) reaper = undefined;
  });
  child.stdin.on('error', () => undefined);
  // mcpkit exits when its own work is done, not when the reaper is.
  child.unref();
  (child.stdin as Writable & Partial<Pick<Socket, 'unref'>>).unref?.();
  for (const pgid of groups) tellReaper('+', pgid);
}

/** Tells a running reaper that a group started (`+`) or is gone (`-`); nothing when there is none. */
export function tellReaper(change: '+' | '-', pgid: number): void {
  if (reaper?.stdin.writable) reaper.stdin.write(`${change}${pgid}\n`);
}
