import { readdirSync, readFileSync } from 'node:fs';
import { eventually } from './eventually.js';

/**
 * The live processes as Linux's /proc shows them, for tests that must prove a process group is gone.
 * `process.kill(-pgid, 0)` alone is not enough: a zombie still answers it until its parent reaps it.
 */
export interface ProcessRow {
  pid: number;
  ppid: number;
  pgid: number;
  /** One letter: R running, S sleeping, Z zombie, … */
  state: string;
}

/** True where /proc can be read (Linux). */
export const hasProcTable = (() => {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
})();

/** Every process now (those that vanish while reading are skipped). */
export function processTable(): ProcessRow[] {
  const rows: ProcessRow[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses, so cut at the last `)`.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    rows.push({
      pid: Number(name),
      state: fields[0] ?? '',
      ppid: Number(fields[1]),
      pgid: Number(fields[2]),
    });
  }
  return rows;
}

/** One process's state letter, or undefined when /proc does not show it. */
export function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/** A process's command line (arguments joined by spaces), or '' when it is gone. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** Whether a process is the reaper a serving mcpkit starts (src/internal/reaper.ts). */
export function isReaper(row: ProcessRow): boolean {
  // The reaper names itself (process.title); older builds are known by their last argument.
  const line = commandLine(row.pid);
  return line === 'mcpkit-reaper' || line.endsWith(' mcpkit-reaper');
}

/** The processes of a group that are still running (zombies count as gone). */
export function groupMembers(pgid: number): ProcessRow[] {
  return processTable().filter((row) => row.pgid === pgid && row.state !== 'Z');
}

/** The direct children of a process that are still running. */
export function childrenOf(pid: number): ProcessRow[] {
  return processTable().filter((row) => row.ppid === pid && row.state !== 'Z');
}

/** SIGKILLs what is left of these groups (a test's cleanup after a failure). */
export function killGroups(pgids: readonly number[]): void {
  for (const pgid of pgids) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** Waits until no process of these groups runs (a generous budget, not an expected duration). */
export async function groupsGone(pgids: readonly number[], ms = 15_000): Promise<void> {
  await eventually(
    `every process of groups ${pgids.join(', ')} to end`,
    () => (pgids.every((pgid) => groupMembers(pgid).length === 0) ? true : undefined),
    ms,
  );
}
