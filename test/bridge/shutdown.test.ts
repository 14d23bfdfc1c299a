import { writeFile } from 'node:fs/promises';
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
import { fixture } from '../helpers/servers.js';
import { connectV1, type V1Session } from '../helpers/v1-client.js';

/**
 * `mcpkit bridge` closed the way the SDK v1 and Python clients close a stdio server (stdin ends, SIGTERM
 * 2 s later): a background job and a call still running are process groups of programs that ignore EOF
 * and SIGTERM and have forked a grandchild; none of their processes may survive.
 */
const STUBBORN = fixture('servers/stubborn-server.mjs');

let ws: Workspace;
let opened: (V1Session & { groups: number[] }) | undefined;

beforeEach(async () => {
  ws = await createWorkspace();
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
  const leaders = await eventually(() => {
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
});
