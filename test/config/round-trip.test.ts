import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expandServerEntry } from '../../src/config/index.js';
import { createWorkspace, type Workspace } from '../helpers/cli.js';
import { runInProcess } from './run-in-process.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

async function place(file: string, text: string): Promise<string> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
  return file;
}

/** Edits one server of mcpkit's user config, as a user would by hand or with `add --force`. */
async function editUserServer(name: string, change: (entry: Record<string, unknown>) => void) {
  const file = join(ws.userDir, 'config.json');
  const config = JSON.parse(await readFile(file, 'utf8'));
  change(config.mcpServers[name]);
  await writeFile(file, JSON.stringify(config, null, 2));
}

const VSCODE = `{
  // Project servers for this repo.
  "servers": {
    "local": {
      "type": "stdio",
      "command": "node",
      "args": ["\${workspaceFolder}/server.js"],
      "cwd": "\${workspaceFolder}",
      "envFile": "\${workspaceFolder}/.env",
      "env": { "API_KEY": "\${env:API_KEY}" }
    }
  }
}
`;

describe('VS Code', () => {
  it('writes a changed entry back with its editor variables and unknown keys as they were', async () => {
    const file = await place(join(ws.project, '.vscode', 'mcp.json'), VSCODE);
    expect((await runInProcess(ws, ['import', 'vscode', '--scope', 'user'])).code).toBe(0);
    await editUserServer('local', (entry) => {
      entry.args = ['${workspaceFolder}/server.js', '--verbose'];
    });
    const r = await runInProcess(ws, ['export', 'vscode', '--write']);
    expect(r.stdout).toBe(`Exported 1 server to ${file}: local (replaced)\n`);
    expect(await readFile(file, 'utf8')).toBe(
      VSCODE.replace(
        '"args": ["${workspaceFolder}/server.js"]',
        '"args": [\n        "${workspaceFolder}/server.js",\n        "--verbose"\n      ]',
      ),
    );
  });
});

describe('Cursor', () => {
  const CURSOR = `{
  "mcpServers": {
    "search": {
      "command": "uvx",
      "args": ["search-mcp", "--root", "\${userHome}/code"],
      "env": { "API_KEY": "\${env:SEARCH_API_KEY}" },
      "envFile": ".env"
    }
  }
}
`;

  it('keeps envFile and ${userHome} in a replaced entry, and writes editor variables of a new one as is', async () => {
    const file = await place(join(ws.home, '.cursor', 'mcp.json'), CURSOR);
    expect((await runInProcess(ws, ['import', 'cursor', '--scope', 'user'])).code).toBe(0);
    await editUserServer('search', (entry) => {
      entry.timeout = undefined;
      (entry.env as Record<string, string>).LOG = 'debug';
    });
    const added = await runInProcess(ws, [
      'add-json',
      'web',
      '--scope',
      'user',
      '{"command":"node","args":["${workspaceFolder}/web.js"],"env":{"T":"${TOKEN}"}}',
    ]);
    expect(added.code, added.stderr).toBe(0);
    const r = await runInProcess(ws, ['export', 'cursor', '--write']);
    expect(r.stdout).toBe(`Exported 2 servers to ${file}: search (replaced), web\n`);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      mcpServers: {
        search: {
          command: 'uvx',
          args: ['search-mcp', '--root', '${userHome}/code'],
          env: { API_KEY: '${env:SEARCH_API_KEY}', LOG: 'debug' },
          envFile: '.env',
        },
        web: { command: 'node', args: ['${workspaceFolder}/web.js'], env: { T: '${env:TOKEN}' } },
      },
    });
  });
});

describe('Claude Code', () => {
  it('keeps project servers in .mcp.json and replaces a project-local server where Claude Code keeps it', async () => {
    const file = join(ws.home, '.claude.json');
    const original = {
      numStartups: 3,
      mcpServers: { user: { type: 'stdio', command: 'user-mcp' } },
      projects: { [ws.project]: { mcpServers: { local: { type: 'stdio', command: 'local-mcp' } } } },
    };
    await place(file, `${JSON.stringify(original, null, 2)}\n`);
    expect((await runInProcess(ws, ['import', 'claude-code', '--scope', 'user'])).code).toBe(0);
    await editUserServer('local', (entry) => {
      entry.args = ['--x'];
    });
    await runInProcess(ws, ['add', 'shared', '--', 'shared-mcp']);
    const r = await runInProcess(ws, ['export', 'claude-code', '--write']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Exported 2 servers to ${file}: user (unchanged), local (replaced)\n`);
    expect(r.stderr).toBe(
      `Skipped 1:\n  - shared: in project scope: Claude Code reads ${join(ws.project, '.mcp.json')} as its own project file already\n`,
    );
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      ...original,
      projects: {
        [ws.project]: { mcpServers: { local: { type: 'stdio', command: 'local-mcp', args: ['--x'] } } },
      },
    });
  });
});

const CODEX = `model = "o3"

# Docs search, used by every profile.
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
env_vars = ["DOCS_TOKEN"]
experimental_resume = true

# The issue tracker.
[mcp_servers.tracker]
command = "tracker-mcp"

[profiles.fast]
model = "o4-mini"
`;

describe('Codex', () => {
  it('replaces a table in place: the comment above it, its unknown keys and [profiles.*] stay', async () => {
    const file = await place(join(ws.home, '.codex', 'config.toml'), CODEX);
    const imported = await runInProcess(ws, ['import', 'codex', '--scope', 'user']);
    expect(imported.stderr).toBe(
      'warning: docs: "experimental_resume" not imported (mcpkit has no equivalent)\n',
    );
    await editUserServer('docs', (entry) => {
      entry.args = ['-y', 'docs-mcp@2'];
    });
    await runInProcess(ws, ['add', 'fresh', '--scope', 'user', '--', 'fresh-mcp']);
    const r = await runInProcess(ws, ['export', 'codex', '--write']);
    expect(r.stdout).toBe(`Exported 3 servers to ${file}: docs (replaced), tracker (unchanged), fresh\n`);
    expect(await readFile(file, 'utf8')).toBe(`model = "o3"

# Docs search, used by every profile.
[mcp_servers.docs]
command = "npx"
args = [ "-y", "docs-mcp@2" ]
env_vars = [ "DOCS_TOKEN" ]
experimental_resume = true

# The issue tracker.
[mcp_servers.tracker]
command = "tracker-mcp"

[mcp_servers.fresh]
command = "fresh-mcp"

[profiles.fast]
model = "o4-mini"
`);
  });

  it('imports env_vars as "pass through if set": an unset variable does not stop the server', async () => {
    await place(join(ws.home, '.codex', 'config.toml'), CODEX);
    await runInProcess(ws, ['import', 'codex']);
    const config = JSON.parse(await readFile(join(ws.project, '.mcp.json'), 'utf8'));
    const docs = config.mcpServers.docs;
    expect(docs.env).toEqual({ DOCS_TOKEN: '${DOCS_TOKEN:-}' });
    expect(expandServerEntry('docs', docs, {}).env).toEqual({});
    expect(expandServerEntry('docs', docs, { DOCS_TOKEN: 't' }).env).toEqual({ DOCS_TOKEN: 't' });
    const get = await runInProcess(ws, ['get', 'docs', '--expand', '--json', '--show-secrets']);
    expect(get.code, get.stderr).toBe(0);
    expect(JSON.parse(get.stdout)).toMatchObject({ name: 'docs', entry: { command: 'npx', env: {} } });
  });

  it('leaves a table alone when mcpkit says ${X} and Codex passes X through: both read the same to Codex', async () => {
    const file = await place(join(ws.home, '.codex', 'config.toml'), CODEX);
    await runInProcess(ws, ['import', 'codex', '--scope', 'user']);
    await editUserServer('docs', (entry) => {
      entry.env = { DOCS_TOKEN: '${DOCS_TOKEN}' };
    });
    const r = await runInProcess(ws, ['export', 'codex', '--write']);
    expect(r.stdout).toContain('docs (unchanged)');
    expect(await readFile(file, 'utf8')).toBe(CODEX);
  });
});
