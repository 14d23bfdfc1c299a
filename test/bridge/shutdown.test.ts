import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, createWorkspace, type Workspace } from '../helpers/cli.js';
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
import { connectV1, type Ended, type V1Session } from '../helpers/v1-client.js';

/**
 * `mcpkit bridge` closed the way the SDK v1 and Python clients close a stdio server (stdin ends, SIGTERM
 * 2 s later): a background job and a call still running are process groups of programs that ignore EOF
 * and SIGTERM and have forked a grandchild; none of their processes may survive.
 */
const STUBBORN = fixture('servers/stubborn-server.mjs');
const DAEMONIZE = fixture('servers/daemonize.mjs');

let ws: Workspace;
let opened: (V1Session & { groups: number[] }) | undefined;
/** Where the daemonizing program writes its daemon's pid (killed by that pid after each test). */
let daemonPidFile: string;

beforeEach(async () => {
  ws = await createWorkspace();
  daemonPidFile = join(ws.root, 'daemon.pid');
  const contract = [
    'name: stubborn',
    `program: ${JSON.stringify(process.execPath)}`,
    'tools:',
    '  start:',
    '    description: Starts a program that will not stop, as a background job.',
    '    background: true',
    `    argv: [${JSON.stringify(STUBBORN)}]`,
    '  run:',
    '    description: Runs a program that will not stop, in the foreground.',
    `    argv: [${JSON.stringify(STUBBORN)}]`,
    '  daemonize:',
    '    description: Runs a program that leaves a daemon holding its stdout and stderr, and exits.',
    `    argv: [${JSON.stringify(DAEMONIZE)}, ${JSON.stringify(daemonPidFile)}]`,
    '',
  ].join('\n');
  await writeFile(join(ws.project, 'stubborn.yaml'), contract);
});

afterEach(async () => {
  if (opened) {
    opened.child.kill('SIGKILL');
    killGroups(opened.groups);
  }
  opened = undefined;
  const daemon = Number(await readFile(daemonPidFile, 'utf8').catch(() => ''));
  if (daemon > 1) {
    try {
      process.kill(daemon, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  await ws.cleanup();
});

/** Starts the bridge with a job running and a call in flight; resolves with their process groups. */
async function openBridge(): Promise<V1Session & { groups: number[] }> {
  const session = await connectV1([CLI, 'bridge', 'stubborn.yaml'], ws.project, ws.env);
  opened = { ...session, groups: [] };
  await session.client.callTool({ name: 'start', arguments: {} });
  // Never answered: the bridge is closed under it.
  session.client.callTool({ name: 'run', arguments: {} }).catch(() => undefined);
  const bridgePid = session.child.pid as number;
  // Both programs running, each with its grandchild in its group.
  const leaders = await eventually('both programs running under the bridge, each with its grandchild', () => {
    const found = childrenOf(bridgePid).filter((c) => !isReaper(c));
    return found.length === 2 && found.every((l) => groupMembers(l.pid).length === 2) ? found : undefined;
  });
  opened.groups = leaders.map((l) => l.pid);
  return opened;
}

describe.skipIf(!hasProcTable)('bridge: no job or call outlives a closing bridge', () => {
  it.each([500, 1990])('stdin ends, then SIGTERM %i ms later', async (delay) => {
    const bridge = await openBridge();
    bridge.child.stdin?.end();
    // The delay is the scenario itself: where in the bridge's shutdown the client's SIGTERM lands.
    await sleep(delay);
    bridge.child.kill('SIGTERM');
    await bridge.exited;
    await groupsGone(bridge.groups);
  });

  it('stdin ends and nothing else: the bridge exits 0 and every group is gone', async () => {
    const bridge = await openBridge();
    bridge.child.stdin?.end();
    expect(await bridge.exited).toEqual({ code: 0, signal: null });
    await groupsGone(bridge.groups);
  });

  it('SIGKILL of the bridge: its reaper kills the job and the call in flight', async () => {
    const bridge = await openBridge();
    bridge.child.kill('SIGKILL');
    await bridge.exited;
    await groupsGone(bridge.groups);
  });

  it('a call that leaves a daemon holding its pipes: the bridge still exits on stdin EOF', async () => {
    const session = await connectV1([CLI, 'bridge', 'stubborn.yaml'], ws.project, ws.env);
    opened = { ...session, groups: [] };
    let ended: Ended | undefined;
    void session.exited.then((how) => {
      ended = how;
    });
    const result = await session.client.callTool({ name: 'daemonize', arguments: {} });
    expect(JSON.stringify(result.content)).toContain('started');
    const daemon = Number(await readFile(daemonPidFile, 'utf8'));
    session.child.stdin?.end();
    // Before, the daemon's end of the call's pipes kept the bridge alive for as long as it ran.
    expect(await eventually('the bridge to exit', () => ended, 15_000)).toEqual({ code: 0, signal: null });
    // It left the group (setsid), but carries the call's mark in its environment: gone with the bridge.
    await eventually('the setsid daemon to be gone', () => (alive(daemon) ? undefined : true));
  });
});
