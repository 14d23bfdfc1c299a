import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../config/run-in-process.js';
import { CLI, createWorkspace, type Workspace } from '../helpers/cli.js';
import { connectGateway, eventually, type GatewayClient, upstream } from '../helpers/gateway.js';

// `mcpkit gateway --profile NAME` (stdio) and /mcp/<profile> (HTTP), with profiles from the project's .mcp.json.
let ws: Workspace;
const cleanups: (() => Promise<void>)[] = [];
beforeEach(async () => {
  ws = await createWorkspace();
  await writeFile(
    join(ws.project, '.mcp.json'),
    JSON.stringify({
      mcpServers: { one: upstream('one'), two: upstream('two') },
      profiles: { review: { servers: ['one'], exclude: ['one__crash', 'one__slow'] } },
    }),
  );
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await ws.cleanup();
});

const PROFILE_TOOLS = ['one__pid', 'one__ask', 'one__sample', 'one__roots', 'one__log', 'one__described'];

describe('mcpkit gateway --profile (stdio)', () => {
  for (const modern of [false, true]) {
    it(`serves only the profile’s tools to a ${modern ? '2026-07-28' : '2025'} client, starting only its servers`, async () => {
      const gw: GatewayClient = await connectGateway(ws, ['--profile', 'review', '--pin', 'off'], { modern });
      cleanups.push(gw.close);
      expect((await gw.client.listTools()).tools.map((t) => t.name)).toEqual(PROFILE_TOOLS);
      await expect(gw.client.callTool({ name: 'two__pid', arguments: {} })).rejects.toThrow(
        'Unknown tool: two__pid',
      );
      expect(gw.stderr()).toContain('mcpkit gateway: 1/1 server ready, 6 tools in profile review\n');
    });
  }

  it('names the profile, not --only, when a profile names a server that is not configured', async () => {
    await writeFile(
      join(ws.project, '.mcp.json'),
      JSON.stringify({
        mcpServers: { one: upstream('one') },
        profiles: { typo: { servers: ['one', 'nosuch'] } },
      }),
    );
    const gw = await connectGateway(ws, ['--profile', 'typo', '--pin', 'off']);
    cleanups.push(gw.close);
    await gw.client.listTools();
    expect(gw.stderr()).toContain(
      'mcpkit gateway: no configured server "nosuch" (named in profile "typo")\n',
    );
    expect(gw.stderr()).not.toContain('--only');
  });

  it('starts no built-in code search for a profile whose servers are none of the configured ones', async () => {
    await writeFile(
      join(ws.project, '.mcp.json'),
      JSON.stringify({ mcpServers: { one: upstream('one') }, profiles: { ghost: { servers: ['nosuch'] } } }),
    );
    const gw = await connectGateway(ws, ['--profile', 'ghost', '--pin', 'off']);
    cleanups.push(gw.close);
    expect((await gw.client.listTools()).tools).toEqual([]);
    expect(gw.stderr()).not.toContain('no servers configured');
    expect(gw.stderr()).toContain('mcpkit gateway: 0/0 servers ready, 0 tools in profile ghost\n');
  });

  it('names the config files and the profiles there are for an unknown profile (exit 2)', async () => {
    const result = await runInProcess(ws, ['gateway', '--profile', 'nope']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `mcpkit: no profile "nope" in ${join(ws.project, '.mcp.json')} or ${join(ws.userDir, 'config.json')}; the profiles there: review\n`,
    );
  });
});

describe('mcpkit gateway -t http: each profile at /mcp/<profile>', () => {
  it('serves /mcp (every tool) and /mcp/review (its tools)', async () => {
    const child = spawn(process.execPath, [CLI, 'gateway', '-t', 'http', '--pin', 'off'], {
      cwd: ws.project,
      env: ws.env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    cleanups.push(async () => {
      if (child.exitCode === null) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await gone;
      }
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const url = await eventually(
      () => /serving on (http:\/\/\S+\/mcp); also \/mcp\/review\n/.exec(stderr)?.[1],
    );
    const listed = async (at: string) => {
      const client = new Client({ name: 'profile-http', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(at)));
      cleanups.push(() => client.close());
      return (await client.listTools()).tools.map((t) => t.name);
    };
    expect(await listed(`${url}/review`)).toEqual(PROFILE_TOOLS);
    expect(await listed(url)).toHaveLength(16);
  });
});
