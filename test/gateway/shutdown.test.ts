import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, createWorkspace, type Workspace } from '../helpers/cli.js';
import { eventually, writeProjectConfig } from '../helpers/gateway.js';
import {
  childrenOf,
  groupMembers,
  groupsGone,
  hasProcTable,
  isReaper,
  killGroups,
} from '../helpers/process-table.js';
import { alive, everything, fixture } from '../helpers/servers.js';
import { connectV1, type Ended, type V1Session } from '../helpers/v1-client.js';

/**
 * A real client closing the gateway: the SDK v1 and Python clients end its stdin, wait 2 s, then SIGTERM.
 * Whenever the SIGTERM lands (mid-shutdown or after it), no process of any upstream group may survive:
 * neither server-everything (which does not exit on EOF) nor a server that ignores EOF and SIGTERM and
 * has forked a grandchild.
 */
interface OpenGateway extends V1Session {
  /** The upstream process groups (each upstream leads its own). */
  groups: number[];
  grandchild: number;
  /** The gateway's reaper process (it SIGKILLs the upstream groups if the gateway is SIGKILLed). */
  reaper: number;
}

let ws: Workspace;
let opened: OpenGateway | undefined;

beforeEach(async () => {
  ws = await createWorkspace();
  await writeProjectConfig(ws, {
    everything,
    stubborn: { command: process.execPath, args: [fixture('servers/stubborn-server.mjs')] },
  });
});

afterEach(async () => {
  // After a failure, nothing of this test may linger for the next one.
  if (opened) {
    opened.child.kill('SIGKILL');
    killGroups(opened.groups);
    if (opened.reaper) killGroups([opened.reaper]);
  }
  opened = undefined;
  await ws.cleanup();
});

/** Starts `mcpkit gateway`, connects the v1 client and waits until both upstreams' tools are listed. */
async function openGateway(): Promise<OpenGateway> {
  const session = await connectV1([CLI, 'gateway', '--no-search'], ws.project, ws.env);
  const { client, child } = session;
  const gatewayPid = child.pid as number;
  opened = { ...session, groups: [], grandchild: 0, reaper: 0 };
  await eventually(
    'the gateway to list everything__echo and stubborn__pids',
    async () => {
      const names = (await client.listTools()).tools.map((t) => t.name);
      return names.includes('everything__echo') && names.includes('stubborn__pids') ? true : undefined;
    },
    30_000,
  );
  const pids = await client.callTool({ name: 'stubborn__pids', arguments: {} });
  const { server, grandchild } = JSON.parse((pids.content as { text: string }[])[0]?.text ?? '{}') as {
    server: number;
    grandchild: number;
  };
  const children = childrenOf(gatewayPid);
  const reaper = children.find(isReaper);
  const leaders = children.filter((c) => c !== reaper);
  expect(reaper).toBeDefined();
  expect(leaders).toHaveLength(2);
  for (const leader of leaders) expect(leader.pgid).toBe(leader.pid);
  expect(leaders.map((l) => l.pid)).toContain(server);
  expect(groupMembers(server).map((m) => m.pid)).toContain(grandchild);
  opened.groups = leaders.map((l) => l.pid);
  opened.grandchild = grandchild;
  opened.reaper = reaper?.pid ?? 0;
  return opened;
}

/** Waits until no process of any upstream group runs. */
const upstreamsGone = (gateway: OpenGateway) => groupsGone(gateway.groups);

describe.skipIf(!hasProcTable)('gateway: no upstream outlives a closing gateway', () => {
  it.each([500, 1500, 1990])(
    'stdin ends, then SIGTERM %i ms later (the SDK v1 / Python close)',
    async (delay) => {
      const gateway = await openGateway();
      gateway.child.stdin?.end();
      // The delay is the scenario itself: where in the gateway's shutdown the client's SIGTERM lands.
      await sleep(delay);
      gateway.child.kill('SIGTERM');
      await gateway.exited;
      await upstreamsGone(gateway);
      expect(alive(gateway.grandchild)).toBe(false);
    },
  );

  it('stdin ends and nothing else: the gateway exits 0 and every upstream group is gone', async () => {
    const gateway = await openGateway();
    gateway.child.stdin?.end();
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    await upstreamsGone(gateway);
    await eventually('the reaper to exit', () => (alive(gateway.reaper) ? undefined : true));
  });

  it("the v1 client's own close finds the gateway gone before its SIGTERM (exit 0)", async () => {
    const gateway = await openGateway();
    await gateway.client.close();
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    await upstreamsGone(gateway);
  });

  it('SIGTERM alone: the gateway shuts down, exits 143, and every upstream group is gone', async () => {
    const gateway = await openGateway();
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toEqual({ code: 143, signal: null });
    await upstreamsGone(gateway);
  });

  it('SIGKILL of the gateway: its reaper kills every upstream group, then exits itself', async () => {
    const gateway = await openGateway();
    gateway.child.kill('SIGKILL');
    await gateway.exited;
    await upstreamsGone(gateway);
    await eventually('the reaper to exit', () => (alive(gateway.reaper) ? undefined : true));
  });

  it.each([100, 500])(
    'Ctrl-C, then Ctrl-C again %i ms later: every upstream group is SIGKILLed',
    async (delay) => {
      const gateway = await openGateway();
      gateway.child.kill('SIGINT');
      // The delay is the scenario: the second Ctrl-C lands inside the shutdown ladder (400 + 300 ms).
      await sleep(delay);
      gateway.child.kill('SIGINT');
      const ended = await gateway.exited;
      // 130 whether the shutdown won the race or the second SIGINT made the stop hard.
      expect(ended).toEqual({ code: 130, signal: null });
      await upstreamsGone(gateway);
      expect(alive(gateway.grandchild)).toBe(false);
    },
  );

  it("an upstream's daemon holding its pipes: a SIGTERMed gateway still exits", async () => {
    const pidFile = join(ws.root, 'daemon.pid');
    const args = [fixture('servers/stubborn-server.mjs'), '--daemon', pidFile];
    await writeProjectConfig(ws, { stubborn: { command: process.execPath, args } });
    const session = await connectV1([CLI, 'gateway', '--no-search'], ws.project, ws.env);
    opened = { ...session, groups: [], grandchild: 0, reaper: 0 };
    let ended: Ended | undefined;
    void session.exited.then((how) => {
      ended = how;
    });
    const daemon = Number(
      await eventually('the daemon to write its pid file', () =>
        readFile(pidFile, 'utf8').catch(() => undefined),
      ),
    );
    try {
      const [leader] = await eventually('the server group under the gateway', () => {
        const found = childrenOf(session.child.pid as number).filter((c) => !isReaper(c));
        return found.length === 1 ? found : undefined;
      });
      opened.groups = leader ? [leader.pid] : [];
      session.child.kill('SIGTERM');
      // Before, the daemon's end of the upstream's pipes kept the gateway alive for as long as it ran.
      expect(await eventually('the gateway to exit', () => ended, 15_000)).toEqual({
        code: 143,
        signal: null,
      });
      await groupsGone(opened.groups);
      // It left the group (setsid), but carries the upstream's mark in its environment (issue 34).
      expect(alive(daemon)).toBe(false);
    } finally {
      process.kill(daemon, 'SIGKILL');
    }
  });
});
