import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, createWorkspace, runCli, type Workspace } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { writeProjectConfig } from '../helpers/gateway.js';
import {
  commandLine,
  groupMembers,
  hasProcTable,
  killGroups,
  processTable,
} from '../helpers/process-table.js';
import { alive, fixture } from '../helpers/servers.js';

/**
 * Issue 34: a stop — SIGINT, SIGTERM, or a stdio client closing stdin — at every phase of a gateway's life
 * ends it with its exit code (130, 143, 0) and leaves no process it started: while its upstreams start (one
 * never answers, ignores EOF and SIGTERM and has forked a grandchild), while one is ready and another slow,
 * while serving, and during its shutdown. `--ready-wait` is 60 s: before the fix a stop while starting
 * waited for all of it (two signal listeners each stepped aside for the other).
 */
const STUBBORN = fixture('servers/stubborn-server.mjs');
const RAW = fixture('servers/raw-server.mjs');

type Stop = 'SIGINT' | 'SIGTERM' | 'eof';
const CODE: Record<Stop, number> = { SIGINT: 130, SIGTERM: 143, eof: 0 };

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface RunningGateway {
  child: ChildProcess;
  ended?: Ended;
  stderr: () => string;
}

let ws: Workspace;
let running: RunningGateway | undefined;
let started: number[] = [];

beforeEach(async () => {
  ws = await createWorkspace();
});

afterEach(async () => {
  // After a failure nothing may linger for the next test.
  running?.child.kill('SIGKILL');
  killGroups(started);
  for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
  running = undefined;
  started = [];
  await ws.cleanup();
});

/** The slow upstream: never answers, ignores EOF/SIGTERM/SIGINT, a grandchild in its group; stderr to `log`. */
const slow = (log: string) => ({
  command: '/bin/sh',
  args: ['-c', 'exec "$0" "$1" --silent 2>>"$2"', process.execPath, STUBBORN, log],
});
/** An upstream that is ready at once, and says so in `readyFile`. */
const fast = (readyFile: string) => ({ command: process.execPath, args: [RAW, '--ready-file', readyFile] });

function startGateway(transport: 'stdio' | 'http', readyWaitMs = 60_000): RunningGateway {
  const args = [CLI, 'gateway', '--no-search', '--ready-wait', String(readyWaitMs)];
  if (transport === 'http') args.push('-t', 'http', '--port', '0', '--no-dashboard');
  const child = spawn(process.execPath, args, { cwd: ws.project, env: ws.env, stdio: 'pipe' });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdout.resume();
  const gateway: RunningGateway = { child, stderr: () => stderr };
  child.once('exit', (code, signal) => {
    gateway.ended = { code, signal };
  });
  running = gateway;
  return gateway;
}

/** Every process below `pid` now (children, theirs…), the gateway's reaper included. */
function descendantsOf(pid: number): number[] {
  const table = processTable().filter((row) => row.state !== 'Z');
  const found: number[] = [];
  for (let frontier = [pid]; frontier.length > 0; ) {
    const next = table.filter((row) => frontier.includes(row.ppid)).map((row) => row.pid);
    found.push(...next);
    frontier = next;
  }
  return found;
}

/** Waits until the slow upstream and its grandchild both run; returns every descendant of the gateway. */
async function slowUpstreamRunning(gateway: RunningGateway): Promise<number[]> {
  return eventually(() => {
    const below = descendantsOf(gateway.child.pid as number);
    const slowGroup = below.find(
      (pid) => groupMembers(pid).length === 2 && commandLine(pid).includes(STUBBORN),
    );
    started = below;
    return slowGroup === undefined ? undefined : below;
  });
}

function stop(gateway: RunningGateway, how: Stop): void {
  if (how === 'eof') gateway.child.stdin?.end();
  else gateway.child.kill(how);
}

/**
 * Ends well before `--ready-wait` would have, with `codes`, and no process it started is left; and not by the
 * backstop that ends a shutdown overrunning its budget (it says so on stderr).
 */
async function endsClean(gateway: RunningGateway, before: number[], codes: number[]): Promise<void> {
  const ended = await eventually(() => gateway.ended, 15_000);
  expect(codes).toContain(ended.code);
  expect(gateway.stderr()).not.toContain('still shutting down');
  await eventually(() => (before.every((pid) => !alive(pid)) ? true : undefined), 10_000);
}

const untilStderr = (gateway: RunningGateway, text: string) =>
  eventually(() => (gateway.stderr().includes(text) ? true : undefined));

/** With the slow upstream running: stops the gateway `how`, then checks it ends with that stop's code, nothing left. */
async function stopsClean(gateway: RunningGateway, how: Stop): Promise<void> {
  const before = await slowUpstreamRunning(gateway);
  stop(gateway, how);
  await endsClean(gateway, before, [CODE[how]]);
}

const STDIO_STOPS: Stop[] = ['SIGINT', 'SIGTERM', 'eof'];
const HTTP_STOPS: Stop[] = ['SIGINT', 'SIGTERM'];

describe.skipIf(!hasProcTable).each([
  ['stdio', STDIO_STOPS],
  ['http', HTTP_STOPS],
] as const)('gateway over %s: a stop at every phase ends it, nothing left', (transport, stops) => {
  it.each(stops)('%s while its only upstream is still starting', async (how) => {
    await writeProjectConfig(ws, { slow: slow(join(ws.root, 'slow.log')) });
    const gateway = startGateway(transport);
    await stopsClean(gateway, how);
  });

  it.each(stops)('%s while one upstream is ready and another slow to be', async (how) => {
    const readyFile = join(ws.root, 'fast.ready');
    await writeProjectConfig(ws, { fast: fast(readyFile), slow: slow(join(ws.root, 'slow.log')) });
    const gateway = startGateway(transport);
    await eventually(() => readFile(readyFile, 'utf8').catch(() => undefined));
    await stopsClean(gateway, how);
  });

  it.each(stops)('%s while serving (one upstream still starting)', async (how) => {
    const readyFile = join(ws.root, 'fast.ready');
    await writeProjectConfig(ws, { fast: fast(readyFile), slow: slow(join(ws.root, 'slow.log')) });
    // Serving begins after this wait, with the slow one still starting.
    const gateway = startGateway(transport, 300);
    await untilStderr(gateway, transport === 'http' ? 'mcpkit gateway: serving on' : ' ready, ');
    await stopsClean(gateway, how);
  });

  it.each(
    (transport === 'stdio'
      ? [
          ['eof', 'SIGTERM'],
          ['SIGTERM', 'SIGINT'],
        ]
      : [
          ['SIGTERM', 'SIGINT'],
          ['SIGINT', 'SIGTERM'],
        ]) satisfies [Stop, Stop][] as [Stop, Stop][],
  )('%s, then %s during the shutdown', async (first, second) => {
    const log = join(ws.root, 'slow.log');
    const readyFile = join(ws.root, 'fast.ready');
    await writeProjectConfig(ws, { fast: fast(readyFile), slow: slow(log) });
    const gateway = startGateway(transport, 300);
    await untilStderr(gateway, transport === 'http' ? 'mcpkit gateway: serving on' : ' ready, ');
    const before = await slowUpstreamRunning(gateway);
    stop(gateway, first);
    // The shutdown ladder's first step reached the slow upstream: it is mid-shutdown.
    await eventually(() =>
      readFile(log, 'utf8').then((text) => (text.includes('stdin ended') ? true : undefined)),
    );
    stop(gateway, second);
    // The second stop is hard (its code) unless the shutdown had just finished (the first's).
    await endsClean(gateway, before, [CODE[second], CODE[first]]);
  });
});

describe.skipIf(!hasProcTable)('a grandchild that called setsid does not outlive mcpkit', () => {
  it('gateway SIGTERM: the re-parented sleeper is killed too', async () => {
    const pidFile = join(ws.root, 'sleeper.pid');
    await writeProjectConfig(ws, {
      daemonizing: { command: process.execPath, args: [RAW, '--setsid-grandchild', pidFile] },
    });
    const gateway = startGateway('stdio');
    await untilStderr(gateway, ' ready, ');
    const sleeper = Number(await eventually(() => readFile(pidFile, 'utf8').catch(() => undefined)));
    started.push(sleeper);
    // It left the server's group and session, and its parent is gone: only its environment says whose it is.
    expect(processTable().find((row) => row.pid === sleeper)?.pgid).toBe(sleeper);
    stop(gateway, 'SIGTERM');
    expect((await eventually(() => gateway.ended, 15_000)).code).toBe(143);
    await eventually(() => (alive(sleeper) ? undefined : true), 10_000);
  });

  it('gateway SIGKILL: its reaper kills the re-parented sleeper too', async () => {
    const pidFile = join(ws.root, 'sleeper.pid');
    await writeProjectConfig(ws, {
      daemonizing: { command: process.execPath, args: [RAW, '--setsid-grandchild', pidFile] },
    });
    const gateway = startGateway('stdio');
    await untilStderr(gateway, ' ready, ');
    const sleeper = Number(await eventually(() => readFile(pidFile, 'utf8').catch(() => undefined)));
    started.push(sleeper, ...descendantsOf(gateway.child.pid as number));
    gateway.child.kill('SIGKILL');
    await eventually(() => (alive(sleeper) ? undefined : true), 10_000);
  });

  it('a completed `mcpkit call`: the sleeper is gone when mcpkit has exited', async () => {
    const pidFile = join(ws.root, 'sleeper.pid');
    const r = await runCli(ws, ['call', 'env', '--', process.execPath, RAW, '--setsid-grandchild', pidFile]);
    expect(r.code).toBe(0);
    const sleeper = Number(await readFile(pidFile, 'utf8'));
    started.push(sleeper);
    expect(alive(sleeper)).toBe(false);
  });
});
