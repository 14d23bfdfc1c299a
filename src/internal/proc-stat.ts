import { readdirSync, readFileSync } from 'node:fs';

/** One process as Linux's /proc/<pid>/stat shows it: the fields the process-group code needs. */
export interface ProcStat {
  /** One letter: R running, S sleeping, Z zombie, … */
  state: string;
  ppid: number;
  pgid: number;
  /**
   * When the process started, in clock ticks since boot: with the pid, its identity (a pid is reused,
   * a pid and a start time are not, within one boot).
   */
  startTime: string;
}

/** The process's stat, or undefined when it is gone or there is no /proc (not Linux). */
export function procStat(pid: number): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // `pid (comm) state ppid pgrp session … starttime(22nd)`: comm may hold anything, so count from its last `)`.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ', 20);
  return {
    state: fields[0] ?? '',
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    startTime: fields[19] ?? '',
  };
}

/** Every pid /proc lists now; undefined where there is no /proc. */
export function procPids(): number[] | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const pids: number[] = [];
  for (const name of names) {
    const code = name.charCodeAt(0);
    if (code >= 48 && code <= 57) pids.push(Number(name));
  }
  return pids;
}

/** The live (not zombie) members of a process group, with their stat; undefined where there is no /proc. */
export function groupMemberStats(pgid: number): ProcStat[] | undefined {
  const pids = procPids();
  if (!pids) return undefined;
  const members: ProcStat[] = [];
  for (const pid of pids) {
    const stat = procStat(pid); // undefined: exited while we looked
    if (stat && stat.pgid === pgid && stat.state !== 'Z') members.push(stat);
  }
  return members;
}
