import { mkdir, mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/client/index.js';
import type { SandboxSetting, StdioServer } from '../../src/config/index.js';
import { sandboxStatus } from '../../src/sandbox/index.js';
import { missingEngines } from '../helpers/engines.js';
import { eventually } from '../helpers/eventually.js';
import { fixture } from '../helpers/servers.js';

/**
 * The hostile fixture under a temp HOME with a key in ~/.ssh: every attempt to reach what the sandbox denies
 * fails, and the same server with the permissions granted works. Runs as root here too: the sandbox drops
 * every capability, so file modes and mounts hold a root user as well.
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const KEY = '-----BEGIN OPENSSH PRIVATE KEY----- test key';

async function world() {
  const root = await mkdtemp(join(tmpdir(), 'mcpkit-sandbox-test-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  const work = join(root, 'work');
  await mkdir(join(home, '.ssh'), { recursive: true });
  await mkdir(work);
  await writeFile(join(home, '.ssh', 'id_ed25519'), KEY, { mode: 0o600 });
  const internet: Server = createServer((_req, res) => res.end('hello from the internet'));
  await new Promise<void>((resolve) => internet.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => internet.close(() => resolve())));
  const port = (internet.address() as AddressInfo).port;
  // The user's session bus stands in for every socket of the runtime dir.
  const runtime = join(root, 'run');
  await mkdir(runtime);
  const bus = createNetServer((socket) => socket.end());
  await new Promise<void>((resolve) => bus.listen(join(runtime, 'bus'), resolve));
  cleanups.push(() => new Promise<void>((resolve) => bus.close(() => resolve())));
  // By name: the proxy resolves `localhost`; inside the sandbox 127.0.0.1 is the sandbox's own loopback.
  return { root, home, work, runtime, url: `http://localhost:${port}/` };
}

async function attack(
  env: { home: string; work: string; runtime: string; url: string },
  sandbox: SandboxSetting,
  name = 'hostile',
) {
  const entry: StdioServer = {
    command: process.execPath,
    args: [fixture('servers/hostile-server.mjs'), '--internet', env.url, '--host-pid', String(process.pid)],
    cwd: env.work,
    sandbox,
  };
  const rt = await Runtime.create({
    servers: [{ name, entry }],
    env: { ...process.env, HOME: env.home, XDG_RUNTIME_DIR: env.runtime },
  });
  cleanups.push(() => rt.close());
  const result = await rt.server(name).callTool('attack', {});
  const text = (result.content as { text: string }[])[0]?.text ?? '';
  return Object.fromEntries(text.split('\n').map((line) => line.split(': ', 2) as [string, string]));
}

describe.skipIf(missingEngines('bwrap'))('a sandboxed server', () => {
  it('cannot read ~/.ssh, write outside its directory, reach a host not allowed, or escape', async () => {
    const env = await world();
    // The test process holds the key open: no descriptor of it may reach the server.
    const held = await open(join(env.home, '.ssh', 'id_ed25519'));
    cleanups.push(() => held.close());
    const seen = await attack(env, { network: { allow: ['example.org'] } });
    expect(seen).toEqual({
      'read-ssh': 'refused EACCES',
      'write-outside': 'refused EROFS',
      'write-inside': 'ok wrote',
      'connect-direct': 'refused ECONNREFUSED',
      'connect-proxy': 'refused 403',
      'session-bus': 'refused EACCES',
      shell: 'refused EACCES',
      proc: 'refused EACCES',
      symlink: 'refused EACCES',
      fd: 'refused EBADF',
    });
    await expect(stat(join(env.home, 'pwned.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(join(env.home, 'pwned-by-shell.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    // Reported: the status (gateway resource, dashboard) names the denied host and the paths the server logged.
    const denials = sandboxStatus('hostile')?.denials.map((d) => `${d.kind} ${d.target}`);
    expect(denials).toEqual(
      expect.arrayContaining([
        `path ${join(env.home, '.ssh', 'id_ed25519')}`,
        `path ${join(env.home, 'pwned.txt')}`,
        `host localhost:${new URL(env.url).port}`,
      ]),
    );
  });

  it('with the default profile has no network at all', async () => {
    const env = await world();
    const seen = await attack(env, true, 'hostile-default');
    expect(seen['connect-direct']).toBe('refused ECONNREFUSED');
    expect(seen['connect-proxy']).toBe('refused no proxy in this sandbox');
    expect(seen['read-ssh']).toBe('refused EACCES');
  });

  it('does what its entry grants', async () => {
    const env = await world();
    const host = `localhost:${new URL(env.url).port}`;
    const seen = await attack(
      env,
      { filesystem: { read: ['~/.ssh'], write: ['~'] }, network: { allow: [host] } },
      'granted',
    );
    expect(seen).toMatchObject({
      'read-ssh': 'ok -----BEGIN OPENSSH PRIVATE KEY----- test key',
      'write-outside': 'ok wrote',
      'connect-proxy': 'ok hello from the internet',
      // No way around the proxy, even when a host is allowed.
      'connect-direct': 'refused ECONNREFUSED',
    });
    expect(await readFile(join(env.home, 'pwned.txt'), 'utf8')).toBe('x');
  });

  it('takes a setsid grandchild with a scrubbed environment down with it (its own PID namespace)', async () => {
    const env = await world();
    const carrying = async (marker: string) => {
      const pids: number[] = [];
      for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
        const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
        if (cmdline.split('\0').includes(marker)) pids.push(Number(pid));
      }
      return pids;
    };
    const daemonAfterClose = async (sandbox: SandboxSetting) => {
      const marker = `mcpkit-sandbox-daemon-${process.pid}-${Date.now()}-${String(sandbox)}`;
      const rt = await Runtime.create({
        servers: [
          {
            name: `daemonizer-${String(sandbox)}`,
            entry: {
              command: process.execPath,
              args: [fixture('servers/hostile-server.mjs'), '--daemon', marker],
              cwd: env.work,
              sandbox,
            },
          },
        ],
        env: { ...process.env, HOME: env.home },
      });
      await eventually('the daemon to run', async () =>
        (await carrying(marker)).length > 0 ? true : undefined,
      );
      await rt.close();
      return marker;
    };
    // Unsandboxed, nothing marks it: it outlives its server (killed here by hand).
    const loose = await daemonAfterClose(false);
    const survivors = await carrying(loose);
    for (const pid of survivors) process.kill(pid, 'SIGKILL');
    expect(survivors).toHaveLength(1);
    const held = await daemonAfterClose(true);
    await eventually('the daemon to die with its server', async () =>
      (await carrying(held)).length === 0 ? true : undefined,
    );
  });

  it('does not start where the OS cannot sandbox, and says how to opt out', async () => {
    const env = await world();
    const { forgetSandboxSupport } = await import('../../src/sandbox/index.js');
    // A machine without bubblewrap: the probe looks for it where MCPKIT_BWRAP says.
    forgetSandboxSupport();
    process.env.MCPKIT_BWRAP = join(env.root, 'no-bwrap-here');
    cleanups.push(() => {
      delete process.env.MCPKIT_BWRAP;
      forgetSandboxSupport();
    });
    const started = Runtime.create({
      servers: [
        {
          name: 'nowhere',
          entry: { command: process.execPath, args: [fixture('servers/hostile-server.mjs')], sandbox: true },
        },
      ],
      env: { ...process.env, HOME: env.home },
    });
    await expect(started).rejects.toThrow(
      'server "nowhere" failed to start (spawn): sandbox unavailable: bubblewrap is not installed (apt-get install bubblewrap, dnf install bubblewrap); to run "nowhere" unsandboxed on purpose, set "sandbox": false in its entry',
    );
    expect(sandboxStatus('nowhere')).toMatchObject({ state: 'unavailable' });
  });
});
