import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
// The SDK v1 client: what users' scripts and many MCP clients run.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, createWorkspace, type Workspace } from '../helpers/cli.js';
import { eventually, writeProjectConfig } from '../helpers/gateway.js';
import { childrenOf, groupMembers, hasProcTable, killGroups } from '../helpers/process-table.js';
import { everything, fixture } from '../helpers/servers.js';

/**
 * A real client closing the gateway: the SDK v1 and Python clients end its stdin, wait 2 s, then SIGTERM.
 * Whenever the SIGTERM lands (mid-shutdown or after it), no process of any upstream group may survive:
 * neither server-everything (which does not exit on EOF) nor a server that ignores EOF and SIGTERM and
 * has forked a grandchild.
 */
interface OpenGateway {
  child: ChildProcess;
  /** The upstream process groups (each upstream leads its own). */
  groups: number[];
  grandchild: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
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
  }
  opened = undefined;
  await ws.cleanup();
});

/** Starts `mcpkit gateway`, connects the v1 client and waits until both upstreams' tools are listed. */
async function openGateway(): Promise<OpenGateway & { client: Client }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'gateway', '--no-search'],
    cwd: ws.project,
    env: ws.env,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'shutdown-test', version: '1.0.0' });
  await client.connect(transport, { timeout: 30_000 });
  // The v1 transport keeps its process private; the test needs it to run the close sequence step by step.
  const child = (transport as unknown as { _process: ChildProcess })._process;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const gatewayPid = child.pid as number;
  opened = { child, groups: [], grandchild: 0, exited };
  await eventually(async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    return names.includes('everything__echo') && names.includes('stubborn__pids') ? true : undefined;
  }, 30_000);
  const pids = await client.callTool({ name: 'stubborn__pids', arguments: {} });
  const { server, grandchild } = JSON.parse((pids.content as { text: string }[])[0]?.text ?? '{}') as {
    server: number;
    grandchild: number;
  };
  const leaders = childrenOf(gatewayPid);
  expect(leaders).toHaveLength(2);
  for (const leader of leaders) expect(leader.pgid).toBe(leader.pid);
  expect(leaders.map((l) => l.pid)).toContain(server);
  expect(groupMembers(server).map((m) => m.pid)).toContain(grandchild);
  opened.groups = leaders.map((l) => l.pid);
  opened.grandchild = grandchild;
  return { ...opened, client };
}

/** Waits until no process of any upstream group runs (a budget, not an expected duration). */
async function upstreamsGone(gateway: OpenGateway): Promise<void> {
  await eventually(
    () => (gateway.groups.every((g) => groupMembers(g).length === 0) ? true : undefined),
    15_000,
  );
}

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
      expect(groupMembers(gateway.grandchild)).toEqual([]);
    },
  );

  it('stdin ends and nothing else: the gateway exits 0 and every upstream group is gone', async () => {
    const gateway = await openGateway();
    gateway.child.stdin?.end();
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    await upstreamsGone(gateway);
  });

  it("the v1 client's own close finds the gateway gone before its SIGTERM (exit 0)", async () => {
    const gateway = await openGateway();
    await gateway.client.close();
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    await upstreamsGone(gateway);
  });

  it('SIGTERM alone: the gateway shuts down, exits 0, and every upstream group is gone', async () => {
    const gateway = await openGateway();
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    await upstreamsGone(gateway);
  });
});
