import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../config/run-in-process.js';
import { createWorkspace, type Workspace } from '../helpers/cli.js';

/** A stdio entry's sandbox through other clients' files: VS Code's own keys, mcpkit's key elsewhere. */
let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(() => ws.cleanup());

async function place(file: string, text: string): Promise<string> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
  return file;
}
const userServers = async () =>
  JSON.parse(await readFile(join(ws.userDir, 'config.json'), 'utf8')).mcpServers as Record<string, unknown>;

describe("VS Code's sandboxEnabled", () => {
  it('imports each sandboxed server with its own settings or the file-level ones, and exports them back', async () => {
    await place(
      join(ws.project, '.vscode', 'mcp.json'),
      JSON.stringify({
        servers: {
          own: {
            type: 'stdio',
            command: 'node',
            args: ['own.js'],
            sandboxEnabled: true,
            sandbox: {
              filesystem: { allowWrite: ['/srv/out'], denyRead: ['~/secret'] },
              network: { allowedDomains: ['api.github.com'] },
            },
          },
          shared: { type: 'stdio', command: 'node', args: ['shared.js'], sandboxEnabled: true },
          open: { type: 'stdio', command: 'node', args: ['open.js'], sandboxEnabled: false },
          plain: { type: 'stdio', command: 'node', args: ['plain.js'] },
        },
        sandbox: { network: { allowedDomains: ['registry.npmjs.org'], deniedDomains: ['evil.example'] } },
      }),
    );
    const imported = await runInProcess(ws, ['import', 'vscode', '--scope', 'user']);
    expect(imported.code).toBe(0);
    expect(await userServers()).toEqual({
      own: {
        command: 'node',
        args: ['own.js'],
        sandbox: {
          filesystem: { write: ['/srv/out'], deny: ['~/secret'] },
          network: { allow: ['api.github.com'] },
        },
      },
      shared: {
        command: 'node',
        args: ['shared.js'],
        sandbox: { network: { allow: ['registry.npmjs.org'] } },
      },
      open: { command: 'node', args: ['open.js'], sandbox: false },
      plain: { command: 'node', args: ['plain.js'] },
    });
    expect(imported.stderr).toContain(
      'sandbox.network.deniedDomains not imported (mcpkit reaches only the allowed domains)',
    );

    const exported = await runInProcess(ws, ['export', 'vscode', '--scope', 'user']);
    const servers = JSON.parse(exported.stdout).servers;
    expect(servers.own).toEqual({
      type: 'stdio',
      command: 'node',
      args: ['own.js'],
      sandboxEnabled: true,
      sandbox: {
        filesystem: { allowWrite: ['/srv/out'], denyRead: ['~/secret'] },
        network: { allowedDomains: ['api.github.com'] },
      },
    });
    expect(servers.open).toMatchObject({ sandboxEnabled: false });
    expect(servers.plain).not.toHaveProperty('sandboxEnabled');
  });
});

describe('other clients', () => {
  it('keep the sandbox key through an export and an import (Claude Code JSON, Codex TOML)', async () => {
    const sandbox = { filesystem: { read: ['~/.aws/config'] }, network: { allow: ['*.example.com'] } };
    await place(
      join(ws.userDir, 'config.json'),
      JSON.stringify({ mcpServers: { boxed: { command: 'node', args: ['b.js'], sandbox } } }),
    );
    for (const client of ['claude-code', 'codex']) {
      const written = await runInProcess(ws, ['export', client, '--scope', 'user', '--write']);
      expect(written.code, written.stderr).toBe(0);
    }
    const claude = JSON.parse(await readFile(join(ws.home, '.claude.json'), 'utf8'));
    expect(claude.mcpServers.boxed.sandbox).toEqual(sandbox);
    const codex = parseToml(await readFile(join(ws.home, '.codex', 'config.toml'), 'utf8')) as {
      mcp_servers: Record<string, { sandbox: unknown }>;
    };
    expect(codex.mcp_servers.boxed?.sandbox).toEqual(sandbox);
    for (const client of ['claude-code', 'codex']) {
      await writeFile(join(ws.userDir, 'config.json'), '{"mcpServers":{}}');
      expect((await runInProcess(ws, ['import', client, '--scope', 'user'])).code).toBe(0);
      expect((await userServers()).boxed, client).toEqual({ command: 'node', args: ['b.js'], sandbox });
    }
  });
});
