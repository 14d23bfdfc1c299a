import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { GROUP_TOKEN_VARIABLE, processToken } from './group-token.js';

/**
 * A watchdog for the one end mcpkit cannot handle itself: being SIGKILLed (or crashing in native code).
 * Nothing runs in a process killed that way, and its children only see their stdin close; servers that
 * keep running after EOF (server-everything does, with its timers) would be orphaned for good. The reaper
 * is a small Node process in its own group that mcpkit tells, over a pipe, which process groups it runs;
 * when that pipe closes, mcpkit is gone, and the reaper SIGKILLs every group it was told of, then exits.
 * It also SIGKILLs every process carrying mcpkit's token (`group-token.ts`): what left a group by `setsid`.
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
const owner = process.argv[2] ? process.argv[2] + '.' : '';
const marked = () => {
  const fs = require('node:fs');
  let names = [];
  try { names = fs.readdirSync('/proc'); } catch {}
  for (const name of names) {
    if (!/^\\d+$/.test(name) || Number(name) === process.pid) continue;
    let env = '';
    try { env = fs.readFileSync('/proc/' + name + '/environ', 'latin1'); } catch { continue; }
    const entry = env.split('\\0').find((e) => e.startsWith('${GROUP_TOKEN_VARIABLE}='));
    const tokens = entry ? entry.slice(${GROUP_TOKEN_VARIABLE.length + 1}).split(':') : [];
    if (!tokens.some((t) => t.startsWith(owner))) continue;
    try { process.kill(Number(name), 'SIGKILL'); } catch {}
  }
};
const reap = () => {
  for (const pgid of groups) {
    try { process.kill(-pgid, 'SIGKILL'); } catch {}
  }
  if (owner) marked();
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
  // Its argument after the marker: the token whose marked processes it kills too (`group-token.ts`).
  const child = spawn(process.execPath, ['-e', SOURCE, MARKER, processToken], {
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
