import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { forgetSandboxSupport } from '../../src/sandbox/index.js';
import { runInProcess } from '../config/run-in-process.js';
import { createWorkspace, type Workspace } from '../helpers/cli.js';
import { missingEngines } from '../helpers/engines.js';
import {
  connectGateway,
  connectInProcess,
  eventually,
  gatewayOf,
  writeProjectConfig,
} from '../helpers/gateway.js';
import { fixture } from '../helpers/servers.js';
import { entries } from '../registry/entries.js';
import { startFakeRegistry } from '../registry/fake-registry.js';

/** `mcpkit add --sandbox/--allow-*` for a command and a registry name, `mcpkit list`, the gateway's status. */
let ws: Workspace;
let registry: Awaited<ReturnType<typeof startFakeRegistry>>;
const mcpkit = (args: string[], env: Record<string, string> = {}) =>
  runInProcess(ws, args, {
    MCPKIT_REGISTRY_URL: registry.url,
    MCPKIT_DATA_DIR: join(ws.root, 'data'),
    ...env,
  });
const projectServers = async () =>
  JSON.parse(await readFile(join(ws.project, '.mcp.json'), 'utf8')).mcpServers as Record<string, unknown>;

beforeAll(async () => {
  registry = await startFakeRegistry([]);
  registry.state.versions.push(...entries(registry.url, createHash('sha256').update('').digest('hex')));
});
afterAll(() => registry.close());
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(() => ws.cleanup());

describe('mcpkit add with a sandbox', () => {
  it('writes the sandbox the flags describe; --sandbox alone is the defaults', async () => {
    const added = await mcpkit([
      'add',
      'web',
      '--allow-net',
      'api.github.com',
      '--allow-net',
      '*.example.com',
      '--allow-write',
      '~/out',
      '--',
      'node',
      'server.js',
    ]);
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect((await mcpkit(['add', 'plain', '--sandbox', '--', 'node', 'plain.js'])).code).toBe(0);
    expect((await mcpkit(['get', 'web'])).stdout).toContain(
      'sandbox:    {"filesystem":{"write":["~/out"]},"network":{"allow":["api.github.com","*.example.com"]}}',
    );
    expect(await projectServers()).toEqual({
      web: {
        command: 'node',
        args: ['server.js'],
        sandbox: {
          filesystem: { write: ['~/out'] },
          network: { allow: ['api.github.com', '*.example.com'] },
        },
      },
      plain: { command: 'node', args: ['plain.js'], sandbox: true },
    });
  });

  it('refuses sandbox flags for a remote server and a bad host, in one line each', async () => {
    const remote = await mcpkit(['add', 'far', '--sandbox', 'https://mcp.example.com/mcp']);
    expect(remote).toMatchObject({
      code: 2,
      stderr:
        'mcpkit: --sandbox, --allow-net, --allow-write and --allow-read are for stdio servers (a remote server runs elsewhere)\n',
    });
    const host = await mcpkit(['add', 'bad', '--allow-net', 'http://x.com/', '--', 'node', 'x.js']);
    expect(host).toMatchObject({
      code: 2,
      stderr: 'mcpkit: --allow-net "http://x.com/": expected a host name, "*.domain" or "host:port"\n',
    });
  });

  it('by registry name: the entry it makes carries the sandbox', async () => {
    const added = await mcpkit([
      'add',
      'io.github.acme/weather',
      '--set',
      'WEATHER_API_KEY=sk-live-not-written',
      '--allow-net',
      'api.weather.example',
    ]);
    expect(added.code).toBe(0);
    expect((await projectServers()).weather).toMatchObject({
      command: 'npx',
      args: ['-y', '@acme/weather-mcp@1.2.0', '--units', 'metric'],
      sandbox: { network: { allow: ['api.weather.example'] } },
    });
  });
});

describe('mcpkit list', () => {
  it('marks each sandboxed entry, and says when this machine cannot sandbox it', async () => {
    await writeFile(
      join(ws.project, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          boxed: { command: 'node', args: ['a.js'], sandbox: { network: { allow: ['api.github.com'] } } },
          open: { command: 'node', args: ['b.js'], sandbox: false },
          plain: { command: 'node', args: ['c.js'] },
        },
      }),
    );
    const listed = await mcpkit(['list']);
    const line = (name: string) => listed.stdout.split('\n').find((l) => l.startsWith(name)) ?? '';
    expect(line('boxed')).toMatch(/node a\.js\s+\[sandbox: on, net: api\.github\.com\]$/);
    expect(line('open')).toMatch(/node b\.js\s+\[sandbox: off\]$/);
    expect(line('plain')).toMatch(/node c\.js$/);
    forgetSandboxSupport();
    process.env.MCPKIT_BWRAP = join(ws.root, 'no-bwrap');
    try {
      const without = await mcpkit(['list']);
      expect(without.stdout).toContain(
        '[sandbox: unavailable, bubblewrap is not installed (apt-get install bubblewrap, dnf install bubblewrap): it will not start]',
      );
    } finally {
      delete process.env.MCPKIT_BWRAP;
      forgetSandboxSupport();
    }
  });
});

describe.skipIf(missingEngines('bwrap'))("the gateway's status resource", () => {
  it("shows each stdio server's sandbox and the hosts it was denied", async () => {
    const work = join(ws.root, 'work');
    await mkdir(work);
    const { gateway } = await gatewayOf(
      [
        {
          name: 'hostile',
          entry: {
            command: process.execPath,
            args: [fixture('servers/hostile-server.mjs'), '--internet', 'http://localhost:9/'],
            cwd: work,
            sandbox: { network: { allow: ['example.org'] } },
          },
        },
        { name: 'open', entry: { command: process.execPath, args: [fixture('servers/hostile-server.mjs')] } },
      ],
      { env: { ...process.env, HOME: join(ws.root, 'home') } },
    );
    const client = await connectInProcess(gateway);
    try {
      await client.client.callTool({ name: 'hostile__attack', arguments: {} });
      const status = JSON.parse(
        (
          (await client.client.readResource({ uri: 'mcpkit://gateway/status' })).contents[0] as {
            text: string;
          }
        ).text,
      );
      const byName = Object.fromEntries(status.servers.map((s: { name: string }) => [s.name, s]));
      expect(byName.hostile.sandbox.state).toBe('on');
      expect(byName.hostile.sandbox.denials).toContainEqual({
        kind: 'host',
        target: 'localhost:9',
        at: expect.any(String),
      });
      expect(byName.open.sandbox).toEqual({ state: 'off', denials: [] });
    } finally {
      await client.close();
    }
  });
});

describe('mcpkit sandbox on', () => {
  it('sandboxes every stdio server that has no setting, in its own scope, and leaves the rest', async () => {
    await writeFile(
      join(ws.project, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          a: { command: 'node', args: ['a.js'], env: { KEEP: 'me' } },
          open: { command: 'node', args: ['b.js'], sandbox: false },
          far: { url: 'https://mcp.example.com/mcp' },
        },
      }),
    );
    const on = await mcpkit(['sandbox', 'on', '--all']);
    expect(on.stdout.split('\n')[0]).toBe(
      'Sandboxed "a" (project scope): reads except secrets, writes to its directory, no network',
    );
    expect(await projectServers()).toEqual({
      a: { command: 'node', args: ['a.js'], env: { KEEP: 'me' }, sandbox: true },
      open: { command: 'node', args: ['b.js'], sandbox: false },
      far: { url: 'https://mcp.example.com/mcp' },
    });
    const unknown = await mcpkit(['sandbox', 'on', 'nope']);
    expect(unknown).toMatchObject({
      code: 2,
      stderr: 'mcpkit: no server named "nope" in project or user scope; see "mcpkit list"\n',
    });
  });
});

describe.skipIf(missingEngines('bwrap'))('mcpkit gateway', () => {
  it('logs one line per distinct host a sandboxed server was denied', async () => {
    const work = join(ws.root, 'work');
    await mkdir(work);
    await writeProjectConfig(ws, {
      hostile: {
        command: process.execPath,
        args: [fixture('servers/hostile-server.mjs'), '--internet', 'http://localhost:9/'],
        cwd: work,
        sandbox: { network: { allow: ['example.org'] } },
      },
    });
    const gw = await connectGateway(ws, ['--no-search']);
    try {
      await gw.client.callTool({ name: 'hostile__attack', arguments: {} });
      await gw.client.callTool({ name: 'hostile__attack', arguments: {} });
      const line = 'mcpkit gateway: [hostile] sandbox denied connect to localhost:9';
      await eventually('the denial in the log', () => (gw.stderr().includes(line) ? true : undefined));
      expect(gw.stderr().split(line)).toHaveLength(2);
    } finally {
      await gw.close();
    }
  });
});
