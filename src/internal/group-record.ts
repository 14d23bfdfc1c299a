import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { killMarked, ofOwner, processToken } from './group-token.js';
import { groupMemberStats, procStat } from './proc-stat.js';

/**
 * The fallback behind the reaper: a small file per running mcpkit listing the process groups it runs, so
 * that when mcpkit and its reaper were both SIGKILLed (the OOM killer can take both; `kill -9 -1`), the next
 * mcpkit that starts a process sweeps what they left. Linux only (identity needs /proc); elsewhere the
 * reaper is the last line.
 *
 * The file is `<dir>/<pid>-<start time>-<thread id>` (worker threads share a pid): `boot <boot id>`, `token
 * <its token>` (`group-token.ts`: a process that left a group is found by it), then one line per change,
 * `+<pgid> <leader start time>` and `-<pgid>`. Appends are a few microseconds each, once per spawned process and
 * once per group gone; a bridge running a program per call would grow it without end, so it is rewritten with
 * only the live groups when changes outnumber them. A clean exit deletes the file.
 */

/** `$XDG_RUNTIME_DIR/mcpkit/groups` (emptied at logout and boot), else `$XDG_STATE_HOME/mcpkit/groups`. */
export function recordDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'mcpkit', 'groups');
  const state = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  return join(state, 'mcpkit', 'groups');
}

/** This process's record: its path once written, null when it cannot be kept (no /proc, read-only home). */
let own: string | null | undefined;
/** What the record says, in memory: live pgid → its leader's start time; and the lines written. */
const recorded = new Map<number, string>();
let lines = 0;
/** Changes allowed beyond the live groups before the record is rewritten. */
const COMPACT_SLACK = 256;

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim();
  } catch {
    return '';
  }
}

function ownRecord(): string | null {
  if (own !== undefined) return own;
  own = null;
  const self = procStat(process.pid);
  if (!self) return own;
  try {
    const dir = recordDirectory();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, `${process.pid}-${self.startTime}-${threadId}`);
    writeFileSync(path, header(), { mode: 0o600 });
    own = path;
  } catch {
    // Without a record only the reaper guards against an abrupt end; nothing else changes.
  }
  return own;
}

/** Notes that a group started (`+`, its leader just spawned) or is gone (`-`). */
export function recordGroup(change: '+' | '-', pgid: number): void {
  const path = ownRecord();
  if (!path) return;
  let line: string;
  if (change === '+') {
    const start = procStat(pgid)?.startTime ?? '';
    recorded.set(pgid, start);
    line = `+${pgid} ${start}\n`;
  } else {
    if (!recorded.delete(pgid)) return;
    line = `-${pgid}\n`;
  }
  try {
    if (++lines > 2 * recorded.size + COMPACT_SLACK) {
      // Whole or not at all: a sweep never reads half a rewrite.
      writeFileSync(
        `${path}.new`,
        header() + [...recorded].map(([id, start]) => `+${id} ${start}\n`).join(''),
        {
          mode: 0o600,
        },
      );
      renameSync(`${path}.new`, path);
      lines = recorded.size;
    } else appendFileSync(path, line);
  } catch {
    // Best effort, like the record itself.
  }
}

function header(): string {
  return `boot ${bootId()}\ntoken ${processToken}\n`;
}

/** Deletes this process's record (a clean exit: its groups are already killed). */
export function dropRecord(): void {
  if (own) rmSync(own, { force: true });
}

/**
 * SIGKILLs the groups that the records of dead mcpkit processes list as live, then deletes those records.
 * A group is ours when its leader runs with the recorded start time, or, once the leader is gone, by its
 * members: a pgid is not reused while a process of the group lives, and members started after the leader.
 */
export function sweepOrphanedGroups(): void {
  const dir = recordDirectory();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const boot = bootId();
  for (const name of names) {
    const owner = /^(\d+)-(\d+)-\d+(\.new)?$/.exec(name);
    if (!owner || procStat(Number(owner[1]))?.startTime === owner[2]) continue; // its mcpkit still runs
    const path = join(dir, name);
    if (owner[3]) {
      rmSync(path, { force: true }); // a rewrite cut short: the record itself is whole
      continue;
    }
    let text: string;
    try {
      text = readFileSync(path, 'latin1');
    } catch {
      continue; // another mcpkit swept it first
    }
    const lines = text.split('\n');
    if (lines[0] === `boot ${boot}`) {
      for (const [pgid, start] of liveGroups(lines)) killIfOurs(pgid, start);
      // What left those groups (setsid) carries the dead mcpkit's token.
      const token = lines[1]?.startsWith('token ') ? lines[1].slice(6) : '';
      if (token) killMarked(ofOwner(token));
    }
    rmSync(path, { force: true });
  }
}

function liveGroups(lines: readonly string[]): Map<number, string> {
  const groups = new Map<number, string>();
  for (const line of lines) {
    const [id, start = ''] = line.slice(1).split(' ');
    const pgid = Number(id);
    if (!Number.isInteger(pgid) || pgid <= 1) continue;
    if (line[0] === '+') groups.set(pgid, start);
    else if (line[0] === '-') groups.delete(pgid);
  }
  return groups;
}

function killIfOurs(pgid: number, leaderStart: string): void {
  if (leaderStart === '') return;
  const leader = procStat(pgid);
  // A leader with another start time: the pid was free, so our group had ended before it was reused.
  const ours = leader
    ? leader.startTime === leaderStart && leader.pgid === pgid
    : (groupMemberStats(pgid) ?? []).some((member) => Number(member.startTime) >= Number(leaderStart));
  if (!ours) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // Gone meanwhile.
  }
}
