import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess as runCli } from '../config/run-in-process.js';
import { createWorkspace, type Workspace } from '../helpers/cli.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

const fixture = (name: string) => readFile(new URL(`../fixtures/clients/${name}`, import.meta.url), 'utf8');
const readJson = async (file: string) => JSON.parse(await readFile(file, 'utf8'));
const projectServers = async () => (await readJson(join(ws.project, '.mcp.json'))).mcpServers;

interface ClientCase {
  client: string;
  fixture: string;
  /** Where the client keeps the file, relative to the workspace's HOME (or project with `project/`). */
  location: (w: Workspace) => string;
  expected: Record<string, unknown>;
  /** Substrings that must appear among the warnings (one each). */
  warnings: string[];
}

const cases: ClientCase[] = [
  {
    client: 'claude-code',
    fixture: 'claude-code.json',
    location: (w) => join(w.home, '.claude.json'),
    expected: {
      github: {
        type: 'http',
        url: 'https://api.example.com/mcp/',
        headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' },
      },
      memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: {} },
      db: { command: 'node', args: ['db.js'], env: { DB_URL: '${DB_URL:-postgres://localhost/dev}' } },
    },
    warnings: ['"db" is defined for'],
  },
  {
    client: 'claude-desktop',
    fixture: 'claude-desktop.json',
    location: (w) => join(w.xdg, 'Claude', 'claude_desktop_config.json'),
    expected: {
      filesystem: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/Documents'],
        env: { LOG_LEVEL: 'debug' },
      },
      'My-Notes': { command: 'notes-mcp' },
    },
    warnings: [],
  },
  {
    client: 'cursor',
    fixture: 'cursor.json',
    location: (w) => join(w.project, '.cursor', 'mcp.json'),
    expected: {
      search: {
        command: 'uvx',
        args: ['search-mcp', '--root', '${HOME}/code'],
        env: { API_KEY: '${SEARCH_API_KEY}' },
      },
      linear: {
        type: 'http',
        url: 'https://mcp.example.com/sse',
        headers: { Authorization: 'Bearer ${LINEAR_TOKEN}' },
      },
    },
    warnings: ['search: "envFile" not imported (mcpkit has no equivalent)'],
  },
  {
    client: 'vscode',
    fixture: 'vscode.jsonc',
    location: (w) => join(w.project, '.vscode', 'mcp.json'),
    expected: {
      perplexity: {
        command: 'npx',
        args: ['-y', 'server-perplexity-ask'],
        env: { PERPLEXITY_API_KEY: '${input:api-key}' },
      },
      github: {
        type: 'http',
        url: 'https://api.githubcopilot.com/mcp/',
        headers: { 'X-Trace': '${TRACE_ID}' },
      },
      local: { command: 'node', args: ['${workspaceFolder}/server.js'], cwd: '/srv/app' },
    },
    warnings: [
      'perplexity: env.PERPLEXITY_API_KEY uses ${input:api-key}, which only VS Code can resolve (it prompts for it); set the value by hand',
      'local: args[0] uses ${workspaceFolder}, which only VS Code can resolve; kept as written',
    ],
  },
  {
    client: 'codex',
    fixture: 'codex.toml',
    location: (w) => join(w.home, '.codex', 'config.toml'),
    expected: {
      docs: {
        command: 'npx',
        args: ['-y', 'docs-mcp'],
        env: { LOG: 'info', DOCS_TOKEN: '${DOCS_TOKEN:-}' },
        startupTimeout: 20000,
        timeout: 45000,
        includeTools: ['search', 'fetch'],
        excludeTools: ['fetch'],
      },
      remote: {
        type: 'http',
        url: 'https://mcp.example.com/mcp',
        headers: { 'X-Team': 'core', 'X-Key': '${REMOTE_KEY}', Authorization: 'Bearer ${REMOTE_TOKEN}' },
      },
      off: { command: 'off-mcp', disabled: true },
    },
    warnings: [],
  },
  {
    client: 'gemini',
    fixture: 'gemini.json',
    location: (w) => join(w.home, '.gemini', 'settings.json'),
    expected: {
      py: {
        command: 'python',
        args: ['-m', 'my_server'],
        cwd: './server',
        env: { API_KEY: '${MY_API_KEY}', REGION: '${REGION}' },
        timeout: 15000,
        includeTools: ['a', 'b'],
        excludeTools: ['b'],
      },
      stream: { type: 'http', url: 'https://h.example/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
      events: { type: 'sse', url: 'https://h.example/sse' },
    },
    warnings: ['py: "trust" not imported (mcpkit has no equivalent)'],
  },
  {
    client: 'windsurf',
    fixture: 'windsurf.json',
    location: (w) => join(w.home, '.codeium', 'windsurf', 'mcp_config.json'),
    expected: {
      remote: { type: 'http', url: 'https://w.example/mcp', headers: { Authorization: 'Bearer ${W_TOKEN}' } },
      paused: { command: 'paused-mcp', disabled: true },
      legacy: { type: 'http', url: 'https://w.example/other' },
    },
    warnings: [],
  },
  {
    client: 'cline',
    fixture: 'cline.json',
    location: (w) =>
      join(
        w.xdg,
        'Code',
        'User',
        'globalStorage',
        'saoudrizwan.claude-dev',
        'settings',
        'cline_mcp_settings.json',
      ),
    expected: {
      stream: { type: 'http', url: 'https://c.example/mcp', timeout: 30000, disabled: false },
      events: { type: 'sse', url: 'https://c.example/sse' },
      local: { command: 'local-mcp', args: ['--x'], disabled: true },
    },
    warnings: ['events: "autoApprove" not imported', 'local: "alwaysAllow" not imported'],
  },
];

async function placeFixture(c: ClientCase): Promise<string> {
  const file = c.location(ws);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, (await fixture(c.fixture)).replaceAll('__PROJECT__', ws.project));
  return file;
}

describe.each(cases)('$client', (c) => {
  it('imports from its usual location with the exact entries and warnings', async () => {
    const file = await placeFixture(c);
    const r = await runCli(ws, ['import', c.client]);
    expect(r.code, r.stderr).toBe(0);
    const names = Object.keys(c.expected);
    expect(r.stdout.split('\n')[0]).toBe(
      `Imported ${names.length} servers from ${file} into project scope (${join(ws.project, '.mcp.json')}):`,
    );
    expect(await projectServers()).toEqual(c.expected);
    expect(Object.keys(await projectServers())).toEqual(names);
    for (const warning of c.warnings) expect(r.stderr).toContain(`warning: ${warning}`);
    if (c.warnings.length === 0) expect(r.stderr).toBe('');
  });

  it('round-trips byte for byte: import, then export --write changes nothing', async () => {
    const file = await placeFixture(c);
    const before = await readFile(file, 'utf8');
    const imported = await runCli(ws, ['import', c.client, '--scope', 'user']);
    expect(imported.code, imported.stderr).toBe(0);
    const exported = await runCli(ws, ['export', c.client, '--write', '--to', file]);
    expect(exported.code, exported.stderr).toBe(0);
    const names = Object.keys(c.expected).map((name) => `${name} (unchanged)`);
    expect(exported.stdout).toBe(
      `Nothing changed: ${file} already holds ${names.length} servers as they are (${names.join(', ')})\n`,
    );
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('round-trips a changed server: only it changes, its unknown keys and the rest of the file stay', async () => {
    const file = await placeFixture(c);
    const before = await readFile(file, 'utf8');
    expect((await runCli(ws, ['import', c.client, '--scope', 'user'])).code).toBe(0);
    const userFile = join(ws.userDir, 'config.json');
    const config = await readJson(userFile);
    const [name] = Object.keys(c.expected) as [string];
    config.mcpServers[name].timeout = 120000;
    await writeFile(userFile, JSON.stringify(config));
    const exported = await runCli(ws, ['export', c.client, '--write', '--to', file]);
    expect(exported.code, exported.stderr).toBe(0);
    const after = await readFile(file, 'utf8');
    const strip = (text: string) => {
      const value = c.fixture.endsWith('.toml') ? parseToml(text) : parseJsonc(text);
      const { mcpServers: _a, servers: _b, mcp_servers: _c, ...rest } = value as Record<string, unknown>;
      return rest;
    };
    // Everything outside the servers map is as it was.
    expect(strip(after)).toEqual(strip(before));
    const back = await runCli(ws, ['import', c.client, '--scope', 'project', '--from', file]);
    expect(back.code, back.stderr).toBe(0);
    const timeoutKept = !['claude-code', 'claude-desktop', 'cursor', 'vscode', 'windsurf'].includes(c.client);
    const servers = await projectServers();
    expect(servers[name].timeout).toBe(timeoutKept ? 120000 : undefined);
    for (const other of Object.keys(c.expected).slice(1)) expect(servers[other]).toEqual(c.expected[other]);
  });
});

describe('import', () => {
  it('skips names that exist unless --force, and --dry-run writes nothing', async () => {
    await placeFixture(cases[2] as ClientCase);
    await runCli(ws, ['add', 'search', '--', 'mine']);
    const dry = await runCli(ws, ['import', 'cursor', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('Would import 1 server from');
    expect(dry.stdout).toContain('  + linear\n');
    expect(dry.stderr).toContain(
      'Skipped 1:\n  - search: exists in project scope (use --force to replace it)\n',
    );
    expect(await projectServers()).toEqual({ search: { command: 'mine' } });

    const forced = await runCli(ws, ['import', 'cursor', '--force']);
    expect(forced.stdout).toContain('  ~ search (replaced)\n');
    expect((await projectServers()).search.command).toBe('uvx');
  });

  it('reports renamed servers', async () => {
    await placeFixture(cases[1] as ClientCase);
    const r = await runCli(ws, ['import', 'claude-desktop']);
    expect(r.stdout).toContain('  + My-Notes (was "My Notes!")\n');
  });

  it('skips an entry the schema rejects, naming where it is in the source', async () => {
    const file = join(ws.project, '.cursor', 'mcp.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(
      file,
      JSON.stringify({ mcpServers: { ok: { command: 'a' }, bad: { command: 'b', args: 'x' } } }),
    );
    const r = await runCli(ws, ['import', 'cursor']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      '  - bad: invalid entry: mcpServers.bad.args: Invalid input: expected array, received string\n',
    );
    expect(await projectServers()).toEqual({ ok: { command: 'a' } });
  });

  it('says where it looked when the client has no config', async () => {
    const r = await runCli(ws, ['import', 'gemini']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `mcpkit: no Gemini CLI config found (looked in ${join(ws.project, '.gemini', 'settings.json')}, ${join(ws.home, '.gemini', 'settings.json')}); pass --from PATH to name the file\n`,
    );
  });

  it('reports a broken source with line and column', async () => {
    const file = join(ws.home, '.codex', 'config.toml');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, '[mcp_servers.a]\ncommand = \n');
    const r = await runCli(ws, ['import', 'codex']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^mcpkit: ${file}:2:\\d+: invalid TOML`));
  });

  it('rejects an unknown client with exit 2', async () => {
    const r = await runCli(ws, ['import', 'emacs']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'unknown client "emacs"; one of: claude-code, claude-desktop, cursor, vscode, codex',
    );
  });
});

describe('export', () => {
  it('prints a snippet in the client format, converting variable syntax', async () => {
    await runCli(ws, ['add-json', 'a', '{"command":"x","env":{"K":"${KEY}","D":"${D:-1}"}}']);
    await runCli(ws, ['add', 'b', 'https://b.example/mcp', '-H', 'Authorization: Bearer ${TOKEN}']);
    const r = await runCli(ws, ['export', 'cursor']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      mcpServers: {
        a: { command: 'x', env: { K: '${env:KEY}', D: '${env:D}' } },
        b: { url: 'https://b.example/mcp', headers: { Authorization: 'Bearer ${env:TOKEN}' } },
      },
    });
    expect(r.stderr).toBe(
      'warning: a: env.D: Cursor has no defaults; "${D:-1}" written without its default\n',
    );
  });

  it('prints Codex TOML using its pass-through variables', async () => {
    await runCli(ws, ['add-json', 'a', '{"command":"x","env":{"KEY":"${KEY}","LIT":"v"},"timeout":1500}']);
    await runCli(ws, ['add', 'b', 'https://b.example/mcp', '-H', 'Authorization: Bearer ${TOKEN}']);
    const r = await runCli(ws, ['export', 'codex']);
    expect(parseToml(r.stdout)).toEqual({
      mcp_servers: {
        a: { command: 'x', env: { LIT: 'v' }, env_vars: ['KEY'], tool_timeout_sec: 2 },
        b: { url: 'https://b.example/mcp', bearer_token_env_var: 'TOKEN' },
      },
    });
  });

  it('reports what a format cannot express instead of dropping it silently', async () => {
    await runCli(ws, ['add', 'remote', 'https://r.example/mcp']);
    await runCli(ws, ['add', 'local', '--cwd', '/srv', '--', 'x']);
    const r = await runCli(ws, ['export', 'claude-desktop']);
    expect(JSON.parse(r.stdout)).toEqual({ mcpServers: { local: { command: 'x' } } });
    expect(r.stderr).toBe(
      [
        'warning: local: cwd "/srv" dropped: Claude Desktop has no working-directory setting',
        'Skipped 1:',
        '  - remote: Claude Desktop cannot run http servers from its config; not exported',
        '',
      ].join('\n'),
    );
  });

  it('keeps comments in a VS Code mcp.json and a Codex config.toml', async () => {
    const vscodeFile = join(ws.project, '.vscode', 'mcp.json');
    await mkdir(dirname(vscodeFile), { recursive: true });
    await writeFile(vscodeFile, await fixture('vscode.jsonc'));
    const codexFile = join(ws.home, '.codex', 'config.toml');
    await mkdir(dirname(codexFile), { recursive: true });
    await writeFile(codexFile, await fixture('codex.toml'));
    await runCli(ws, ['add', 'fresh', '--', 'fresh-mcp']);
    await runCli(ws, ['add-json', 'docs', '{"command":"new-docs"}']);

    expect((await runCli(ws, ['export', 'vscode', '--write'])).code).toBe(0);
    const vs = await readFile(vscodeFile, 'utf8');
    expect(vs).toContain('// Inputs prompt the user once and are stored by VS Code.');
    expect(vs).toContain('/* a remote one */');
    expect(vs).toContain('"fresh": {\n      "type": "stdio",\n      "command": "fresh-mcp"\n    }');

    const r = await runCli(ws, ['export', 'codex', '--write']);
    expect(r.stdout).toBe(`Exported 2 servers to ${codexFile}: fresh, docs (replaced)\n`);
    const toml = await readFile(codexFile, 'utf8');
    expect(toml).toContain('# Codex settings, with comments that must survive an export.');
    expect(toml).not.toContain('# the docs server');
    const parsed = parseToml(toml) as {
      mcp_servers: Record<string, unknown>;
      profiles: unknown;
      model: string;
    };
    expect(parsed.model).toBe('o3');
    expect(parsed.profiles).toEqual({ fast: { model: 'o4-mini' } });
    expect(parsed.mcp_servers.docs).toEqual({ command: 'new-docs' });
    expect(Object.keys(parsed.mcp_servers).sort()).toEqual(['docs', 'fresh', 'off', 'remote']);
  });

  it('never overwrites a client file that does not parse', async () => {
    const file = join(ws.home, '.cursor', 'mcp.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, '{"mcpServers": {,}}');
    await runCli(ws, ['add', 'a', '--', 'x']);
    const r = await runCli(ws, ['export', 'cursor', '--write']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `mcpkit: ${file}:1:17: invalid JSON (value expected); fix the file by hand, mcpkit will not overwrite it\n`,
    );
    expect(await readFile(file, 'utf8')).toBe('{"mcpServers": {,}}');
  });

  it('--to without --write is a usage error', async () => {
    const r = await runCli(ws, ['export', 'cursor', '--to', 'x.json']);
    expect(r.code).toBe(2);
  });
});
