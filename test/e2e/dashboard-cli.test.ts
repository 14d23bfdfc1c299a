import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, createWorkspace, runCli, type Workspace } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { everything } from '../helpers/servers.js';

const TOKEN = '0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c';
const SECRET = 'sk-e2e-audit-secret-4b8d2f6a1c3e5a7b9d';

let ws: Workspace;
let gateway: ChildProcess | undefined;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  if (gateway && gateway.exitCode === null) {
    gateway.kill('SIGKILL');
    await new Promise((resolve) => gateway?.once('exit', resolve));
  }
  gateway = undefined;
  await ws.cleanup();
});

describe('mcpkit gateway -t http --audit, and mcpkit dashboard', () => {
  it('serves the dashboard, audits calls under the token name, and `mcpkit dashboard` opens it with a one-time key', async () => {
    await writeFile(
      join(ws.project, '.mcp.json'),
      JSON.stringify({ mcpServers: { everything: { command: everything.command, args: everything.args } } }),
    );
    const tokens = join(ws.root, 'tokens');
    await writeFile(tokens, `alice:${TOKEN}\n`);
    await chmod(tokens, 0o600);
    // A stand-in for the desktop's opener: it writes down the address it was given.
    const bin = join(ws.root, 'bin');
    await mkdir(bin);
    const opened = join(ws.root, 'opened.txt');
    await writeFile(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
    await chmod(join(bin, 'xdg-open'), 0o755);
    const env = { ...ws.env, MCPKIT_STATE_DIR: join(ws.root, 'state'), PATH: `${bin}:${ws.env.PATH}` };

    gateway = spawn(
      process.execPath,
      [CLI, 'gateway', '-t', 'http', '--tokens', tokens, '--audit', 'logs/audit.jsonl'],
      { cwd: ws.project, env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    gateway.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const page = await eventually(
      () => /dashboard on (http:\/\/127\.0\.0\.1:\d+\/) /.exec(stderr)?.[1],
      30_000,
    );
    const mcp = `${page}mcp`;

    const client = new V1Client({ name: 'e2e', version: '1' });
    await client.connect(
      new V1HttpTransport(new URL(mcp), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    await client.callTool({ name: 'everything__echo', arguments: { message: SECRET } });
    await client.close();

    const shown = await runCli(ws, ['dashboard', '--no-open'], env);
    expect(shown).toMatchObject({ code: 0, stdout: `${page}\n`, stderr: '' });

    const open = await runCli(ws, ['dashboard'], env);
    expect(open.code).toBe(0);
    const address = new URL(await eventually(() => readFile(opened, 'utf8').catch(() => undefined)));
    expect(`${address.origin}/`).toBe(page);
    const key = address.searchParams.get('key');
    expect(key).toMatch(/^[\w-]{32}$/);
    const login = await fetch(address, { redirect: 'manual' });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
    const state = await fetch(`${page}dashboard/api/state`, { headers: { cookie } });
    expect(state.status).toBe(200);
    const body = (await state.json()) as {
      tools: { name: string }[];
      calls: { name: string; client: string }[];
    };
    expect(body.tools.some((t) => t.name === 'everything__echo')).toBe(true);
    expect(body.calls.map((c) => [c.name, c.client])).toEqual([['everything__echo', 'alice']]);
    // The key opened one session; used again, it is refused (the runtime file has the next one).
    expect((await fetch(address, { redirect: 'manual' })).status).toBe(401);

    gateway.kill('SIGTERM');
    const code = await new Promise((resolve) => gateway?.once('exit', resolve));
    expect(code).toBe(143);
    expect(await readdir(join(ws.root, 'state', 'gateways'))).toEqual([]);

    const audit = await readFile(join(ws.project, 'logs', 'audit.jsonl'), 'utf8');
    expect(audit).not.toContain(SECRET);
    expect(audit).not.toContain(TOKEN);
    const lines = audit
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((l) => [l.client, l.tool, l.outcome])).toEqual([['alice', 'everything__echo', 'ok']]);

    const none = await runCli(ws, ['dashboard'], env);
    expect(none).toMatchObject({
      code: 1,
      stderr: 'mcpkit: no gateway is serving HTTP on this machine; start one with `mcpkit gateway -t http`\n',
    });
  }, 90_000);
});
