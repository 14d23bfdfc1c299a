import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../config/run-in-process.js';
import { CLI, createWorkspace, type Workspace } from '../helpers/cli.js';
import { missingEngines } from '../helpers/engines.js';
import { eventually } from '../helpers/eventually.js';
import { fixture } from '../helpers/servers.js';

/**
 * Learn mode on a server with needs (it reads ~/.aws/config, writes a report outside its directory, fetches
 * from a host): `check` under the defaults names each denial and its line; `learn --write` writes the profile;
 * the recorded session replays under it with zero denials.
 */
let ws: Workspace;
let internet: Server;
beforeEach(async () => {
  ws = await createWorkspace();
  internet = createServer((_req, res) => res.end('hello from the internet'));
  await new Promise<void>((resolve) => internet.listen(0, '127.0.0.1', resolve));
});
afterEach(async () => {
  await new Promise<void>((resolve) => internet.close(() => resolve()));
  await ws.cleanup();
});

/**
 * The project's one server, `needy`: the fixture's `work` tool reads ~/.aws/config, writes a report into an
 * outbox outside its directory and fetches from the loopback "internet" by name.
 */
async function needyServer(sandbox: true | undefined) {
  const port = (internet.address() as AddressInfo).port;
  const outbox = join(ws.root, 'outbox');
  const work = join(ws.root, 'work');
  await Promise.all([mkdir(outbox), mkdir(work), mkdir(join(ws.home, '.aws'), { recursive: true })]);
  await writeFile(join(ws.home, '.aws', 'config'), '[default]\nregion = eu-west-1\n');
  const args = [
    fixture('servers/hostile-server.mjs'),
    '--outbox',
    outbox,
    '--internet',
    `http://localhost:${port}/`,
  ];
  const needy = { command: process.execPath, args, cwd: work, ...(sandbox ? { sandbox } : {}) };
  await writeFile(join(ws.project, '.mcp.json'), JSON.stringify({ mcpServers: { needy } }));
  return { port, outbox };
}

describe.skipIf(missingEngines('bwrap', 'strace'))('mcpkit sandbox learn / check', () => {
  it('learns the smallest profile from a session; the session then replays with zero denials', async () => {
    const { port, outbox } = await needyServer(true);
    const session = join(ws.root, 'session.jsonl');
    await writeFile(session, `${JSON.stringify({ tool: 'work', arguments: {} })}\n`);

    const before = await runInProcess(ws, ['sandbox', 'check', 'needy', '--session', session]);
    expect(before.code).toBe(1);
    expect(before.stdout.split('\n').filter(Boolean)).toEqual([
      'denied read ~/.aws/config: add "~/.aws" to sandbox.filesystem.read',
      `denied write ${outbox}/report.txt: add "${outbox}" to sandbox.filesystem.write`,
      `denied connect localhost:${port}: add "localhost:${port}" to sandbox.network.allow`,
    ]);
    expect(before.stderr).toBe('mcpkit: 3 denials in 1 tool call of "needy"\n');

    const learned = await runInProcess(ws, ['sandbox', 'learn', 'needy', '--session', session, '--write']);
    expect(learned.stderr).toBe('');
    expect(learned.code).toBe(0);
    expect(learned.stdout).toContain('  - "sandbox": true\n');
    const entry = JSON.parse(await readFile(join(ws.project, '.mcp.json'), 'utf8')).mcpServers.needy;
    expect(entry.sandbox).toEqual({
      filesystem: { read: ['~/.aws'], write: [outbox] },
      network: { allow: [`localhost:${port}`] },
    });

    const after = await runInProcess(ws, ['sandbox', 'check', 'needy', '--session', session]);
    expect(after).toMatchObject({
      code: 0,
      stdout: 'No denials: "needy" ran 1 tool call within its sandbox\n',
    });
    expect(await readFile(join(outbox, 'report.txt'), 'utf8')).toBe('done');
  });
});

describe.skipIf(missingEngines('bwrap', 'strace'))('mcpkit sandbox learn --serve', () => {
  it('learns from the session a client runs through it, and keeps that session for check', async () => {
    const { port, outbox } = await needyServer(undefined);
    const record = join(ws.root, 'recorded.jsonl');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'sandbox', 'learn', 'needy', '--serve', '--record', record, '--write'],
      cwd: ws.project,
      env: ws.env,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: 'a-user', version: '1' });
    await client.connect(transport, { timeout: 30_000 });
    const result = await client.callTool({ name: 'work', arguments: {} });
    expect((result.content as { text: string }[])[0]?.text).toContain('fetch: ok hello from the internet');
    await client.close();
    await eventually('the profile written', () => (stderr.includes('Wrote the sandbox') ? true : undefined));
    expect(await readFile(record, 'utf8')).toBe(`${JSON.stringify({ tool: 'work', arguments: {} })}\n`);
    const entry = JSON.parse(await readFile(join(ws.project, '.mcp.json'), 'utf8')).mcpServers.needy;
    expect(entry.sandbox).toEqual({
      filesystem: { read: ['~/.aws'], write: [outbox] },
      network: { allow: [`localhost:${port}`] },
    });
    const replay = await runInProcess(ws, ['sandbox', 'check', 'needy', '--session', record]);
    expect(replay).toMatchObject({
      code: 0,
      stdout: 'No denials: "needy" ran 1 tool call within its sandbox\n',
    });
  });
});
