import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordDirectory, recordGroup, sweepOrphanedGroups } from '../../src/internal/group-record.js';
import { procStat } from '../../src/internal/proc-stat.js';
import { eventually } from '../helpers/eventually.js';
import { hasProcTable, killGroups } from '../helpers/process-table.js';
import { alive } from '../helpers/servers.js';

/**
 * The sweep behind the reaper: it kills what the records of dead mcpkit processes list as live, and only
 * that — never a group whose leader's pid was reused (another start time), one recorded as gone, one from
 * another boot, or one of an mcpkit that still runs.
 */
let root: string;
let dir: string;
const saved = process.env.XDG_RUNTIME_DIR;
const sleepers: ChildProcess[] = [];
/** No such process: pids stop at pid_max (at most 2^22). */
const DEAD_OWNER = '999999999-1-0';

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'mcpkit-record-'));
  process.env.XDG_RUNTIME_DIR = root;
  dir = recordDirectory();
  await mkdir(dir, { recursive: true });
});

afterEach(async () => {
  killGroups(sleepers.flatMap((s) => (s.pid === undefined ? [] : [s.pid])));
  sleepers.length = 0;
  if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
  else process.env.XDG_RUNTIME_DIR = saved;
  await rm(root, { recursive: true, force: true });
});

/** A process leading its own group, as spawnGroup starts them; its pid. */
function sleeper(): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6);'], {
    detached: true,
    stdio: 'ignore',
  });
  sleepers.push(child);
  return child.pid as number;
}

const startOf = (pid: number) => procStat(pid)?.startTime ?? '';
const boot = () => readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim();
const record = (owner: string, lines: string[]) => writeFile(join(dir, owner), `${lines.join('\n')}\n`);

describe.skipIf(!hasProcTable)('sweepOrphanedGroups', () => {
  it("kills what left a dead mcpkit's groups (setsid) by the token in its environment, not another's", async () => {
    const marked = (value: string) => {
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6);'], {
        detached: true,
        stdio: 'ignore',
        env: { ...process.env, MCPKIT_GROUP: value },
      });
      sleepers.push(child);
      return child.pid as number;
    };
    const left = marked('0123456789ab.1:deadbeef0000.3');
    const other = marked('0123456789ab.1:feedfeed0000.3');
    await record(DEAD_OWNER, [`boot ${boot()}`, 'token deadbeef0000']);
    sweepOrphanedGroups();
    await eventually(() => (alive(left) ? undefined : true));
    expect(alive(other)).toBe(true);
  });

  it("kills the live groups of a dead mcpkit's record, then deletes the record", async () => {
    const pid = sleeper();
    await eventually(() => (startOf(pid) ? true : undefined));
    await record(DEAD_OWNER, [`boot ${boot()}`, `+${pid} ${startOf(pid)}`]);
    sweepOrphanedGroups();
    await eventually(() => (alive(pid) ? undefined : true));
    expect(await readdir(dir)).toEqual([]);
  });

  it('spares a reused pid, a group recorded as gone and a group from another boot', async () => {
    const [reused, gone, otherBoot] = [sleeper(), sleeper(), sleeper()];
    await record(DEAD_OWNER, [`boot ${boot()}`, `+${reused} 1`, `+${gone} ${startOf(gone)}`, `-${gone}`]);
    await record('999999998-1-0', ['boot another-boot', `+${otherBoot} ${startOf(otherBoot)}`]);
    sweepOrphanedGroups();
    expect([alive(reused), alive(gone), alive(otherBoot)]).toEqual([true, true, true]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('leaves the record of an mcpkit that still runs alone', async () => {
    const pid = sleeper();
    const owner = `${process.pid}-${startOf(process.pid)}-99`;
    await record(owner, [`boot ${boot()}`, `+${pid} ${startOf(pid)}`]);
    sweepOrphanedGroups();
    expect(alive(pid)).toBe(true);
    expect(await readdir(dir)).toEqual([owner]);
  });

  it("keeps this process's own record small however many groups come and go (a bridge's calls)", async () => {
    const pid = sleeper();
    for (let i = 0; i < 5000; i++) {
      recordGroup('+', pid);
      recordGroup('-', pid);
    }
    recordGroup('+', pid);
    const [own] = await readdir(dir);
    const lines = (await readFile(join(dir, own ?? ''), 'utf8')).trim().split('\n');
    expect(lines.length).toBeLessThan(300);
    expect(lines.at(-1)).toBe(`+${pid} ${startOf(pid)}`);
  });
});
