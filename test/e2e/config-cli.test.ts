import { lstat, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkspace, runCli, type Workspace } from '../helpers/cli.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

const projectFile = () => join(ws.project, '.mcp.json');
const userFile = () => join(ws.userDir, 'config.json');
const readJson = async (file: string) => JSON.parse(await readFile(file, 'utf8'));

describe('mcpkit add', () => {
  it('writes a stdio server to .mcp.json as 2-space JSON with a trailing newline', async () => {
    const r = await runCli(ws, ['add', 'fs', '-e', 'TOKEN=abc', '--', 'npx', '-y', 'pkg', '--flag']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Added stdio server "fs" in project scope (${projectFile()})\n`);
    const text = await readFile(projectFile(), 'utf8');
    expect(JSON.parse(text)).toEqual({
      mcpServers: { fs: { command: 'npx', args: ['-y', 'pkg', '--flag'], env: { TOKEN: 'abc' } } },
    });
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toContain('\n  "mcpServers": {\n    "fs": {\n      "command": "npx",');
  });

  it('writes an http server with headers, inferring http from a URL', async () => {
    const r = await runCli(ws, ['add', 'api', 'https://example.com/mcp', '-H', 'Authorization: Bearer t0k']);
    expect(r.code).toBe(0);
    expect(await readJson(projectFile())).toEqual({
      mcpServers: {
        api: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer t0k' } },
      },
    });
  });

  it('writes sse and user-scope servers to the user config', async () => {
    const r = await runCli(ws, [
      'add',
      'legacy',
      '--scope',
      'user',
      '--transport',
      'sse',
      'http://127.0.0.1:9/sse',
    ]);
    expect(r.code).toBe(0);
    expect(await readJson(userFile())).toEqual({
      mcpServers: { legacy: { type: 'sse', url: 'http://127.0.0.1:9/sse' } },
    });
  });

  it('uses $XDG_CONFIG_HOME/mcpkit without MCPKIT_CONFIG_DIR', async () => {
    const r = await runCli(ws, ['add', 'x', '--scope', 'user', '--', 'node'], { MCPKIT_CONFIG_DIR: '' });
    expect(r.code).toBe(0);
    expect(await readJson(join(ws.xdg, 'mcpkit', 'config.json'))).toEqual({
      mcpServers: { x: { command: 'node' } },
    });
  });

  it('refuses an existing name unless --force, and --force replaces in place', async () => {
    await runCli(ws, ['add', 'a', '--', 'one']);
    await runCli(ws, ['add', 'b', '--', 'two']);
    const refused = await runCli(ws, ['add', 'a', '--', 'three']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `mcpkit: server "a" already exists in project scope (${projectFile()}); use --force to replace it\n`,
    );
    const forced = await runCli(ws, ['add', 'a', '--force', '--', 'three']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/^Replaced stdio server "a"/);
    const doc = await readJson(projectFile());
    expect(Object.keys(doc.mcpServers)).toEqual(['a', 'b']);
    expect(doc.mcpServers.a).toEqual({ command: 'three' });
  });

  it.each([
    [['add', 'bad__name', '--', 'x'], 'invalid server name "bad__name": must not contain "__"'],
    [['add', 'has.dot', '--', 'x'], 'invalid server name "has.dot": must be 1-64 characters'],
    [['add', 'a'.repeat(65), '--', 'x'], 'must be 1-64 characters'],
    [['add', 'x', '-e', 'NOEQUALS', '--', 'x'], '--env "NOEQUALS": expected KEY=VALUE'],
    [['add', 'x', '-H', 'nocolon', 'https://h/mcp'], '--header "nocolon": expected "Name: value"'],
    [['add', 'x', '-H', 'A: b', '--', 'node'], '--header is for http and sse servers'],
    [['add', 'x', '-e', 'A=b', 'https://h/mcp'], '--env is for stdio servers'],
    [['add', 'x', '--transport', 'http', 'notaurl'], '--transport http needs an http:// or https:// URL'],
    [['add', 'x', '--scope', 'global', '--', 'x'], '--scope must be "project" or "user", got "global"'],
    [['add', 'x', '--transport', 'ws', 'x'], '--transport must be "stdio", "http" or "sse"'],
    [['add', 'x', '--timeout', '-5', '--', 'x'], '--timeout must be a positive integer'],
    [['add', 'x'], 'missing command: mcpkit add <name> -- <command>'],
  ])('usage error %j exits 2 and writes nothing', async (args, message) => {
    const r = await runCli(ws, args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    await expect(lstat(projectFile())).rejects.toThrow(/ENOENT/);
  });

  it('keeps unknown top-level keys, unknown entry keys and entry order', async () => {
    const original = {
      $schema: 'https://example.com/schema.json',
      mcpServers: {
        '10': { command: 'numeric-name' },
        zed: { command: 'z', 'x-editor': { pinned: true } },
        alpha: { type: 'http', url: 'https://a/mcp', oauth: { clientId: 'abc' } },
      },
      otherTool: { keep: [1, 2, 3] },
    };
    await writeFile(projectFile(), JSON.stringify(original, null, 2));
    expect((await runCli(ws, ['add', 'new', '--', 'n'])).code).toBe(0);
    expect((await runCli(ws, ['remove', 'alpha'])).code).toBe(0);
    const text = await readFile(projectFile(), 'utf8');
    expect(JSON.parse(text)).toEqual({
      $schema: 'https://example.com/schema.json',
      mcpServers: { '10': { command: 'numeric-name' }, zed: original.mcpServers.zed, new: { command: 'n' } },
      otherTool: { keep: [1, 2, 3] },
    });
    // Key order as written, including a numeric-looking name JavaScript objects would move first anyway.
    expect([...text.matchAll(/^ {4}"([^"]+)": \{/gm)].map((m) => m[1])).toEqual(['10', 'zed', 'new']);
  });

  it('writes atomically: no temp file is left and a symlinked config stays a symlink', async () => {
    const real = join(ws.root, 'dotfiles', 'mcp.json');
    await mkdir(join(ws.root, 'dotfiles'));
    await writeFile(real, '{"mcpServers":{}}\n');
    await symlink(real, projectFile());
    expect((await runCli(ws, ['add', 'a', '--', 'x'])).code).toBe(0);
    expect((await lstat(projectFile())).isSymbolicLink()).toBe(true);
    expect((await readJson(real)).mcpServers).toEqual({ a: { command: 'x' } });
    expect((await readdir(join(ws.root, 'dotfiles'))).sort()).toEqual(['mcp.json']);
    expect((await readdir(ws.project)).sort()).toEqual(['.mcp.json']);
  });
});

describe('mcpkit add-json', () => {
  it('adds a validated entry, keeping keys mcpkit does not know', async () => {
    const json = '{"command":"uvx","args":["srv"],"timeout":5000,"includeTools":["a"],"x-note":"kept"}';
    const r = await runCli(ws, ['add-json', 'py', json, '--scope', 'user']);
    expect(r.code).toBe(0);
    expect((await readJson(userFile())).mcpServers.py).toEqual(JSON.parse(json));
  });

  it('rejects an invalid entry naming the JSON path, and leaves the file byte-for-byte untouched', async () => {
    const before = '{\n  "mcpServers": {\n    "keep": { "command": "k" }\n  }\n}\n';
    await writeFile(projectFile(), before);
    const r = await runCli(ws, ['add-json', 'x', '{"command":"c","args":["ok",5],"env":{"A":1}}']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'mcpkit: argument <json>: args[1]: Invalid input: expected string, received number; env.A: Invalid input: expected string, received number; nothing written\n',
    );
    expect(await readFile(projectFile(), 'utf8')).toBe(before);
  });

  it('reports invalid JSON in the argument with line and column', async () => {
    const r = await runCli(ws, ['add-json', 'x', '{"command": "c",}']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('mcpkit: argument <json>:1:17: invalid JSON (property name expected)\n');
  });

  it('rejects an entry with neither command nor url', async () => {
    const r = await runCli(ws, ['add-json', 'x', '{"args":["a"]}']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('needs "command" (a stdio server) or "url" (an http/sse server)');
  });
});

describe('mcpkit list', () => {
  it('shows both scopes, marks the shadowed entry and masks secrets', async () => {
    await runCli(ws, ['add', 'fs', '-e', 'TOKEN=s3cret', '--', 'npx', '-y', 'server fs']);
    await runCli(ws, [
      'add',
      'api',
      'https://h.example/mcp?api_key=k3y&x=1',
      '-H',
      'Authorization: Bearer t0k',
    ]);
    await runCli(ws, ['add', 'fs', '--scope', 'user', '--', 'node', 'old.js']);
    const r = await runCli(ws, ['list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'NAME  SCOPE    TRANSPORT  TARGET',
        "fs    project  stdio      npx -y 'server fs'  [env: TOKEN=***]",
        'api   project  http       https://h.example/mcp?api_key=***&x=1  [headers: Authorization: ***]',
        'fs    user     stdio      node old.js  (shadowed by project)',
        '',
      ].join('\n'),
    );
    expect(r.stdout).not.toContain('s3cret');
    const shown = await runCli(ws, ['list', '--show-secrets']);
    expect(shown.stdout).toContain('[env: TOKEN=s3cret]');
    expect(shown.stdout).toContain('Authorization: Bearer t0k');
  });

  it('prints JSON with scope, file and shadowed', async () => {
    await runCli(ws, ['add', 'fs', '-e', 'TOKEN=s3cret', '--', 'npx']);
    await runCli(ws, ['add', 'fs', '--scope', 'user', '--', 'node']);
    const r = await runCli(ws, ['list', '--json']);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        name: 'fs',
        scope: 'project',
        file: projectFile(),
        transport: 'stdio',
        shadowed: false,
        disabled: false,
        entry: { command: 'npx', env: { TOKEN: '***' } },
      },
      {
        name: 'fs',
        scope: 'user',
        file: userFile(),
        transport: 'stdio',
        shadowed: true,
        disabled: false,
        entry: { command: 'node' },
      },
    ]);
  });

  it('skips an invalid entry with one warning naming file and JSON path; the rest loads', async () => {
    await writeFile(
      projectFile(),
      JSON.stringify({
        mcpServers: {
          good: { command: 'g' },
          bad: { command: 'b', args: [1] },
          'bad name': { command: 'c' },
        },
      }),
    );
    const r = await runCli(ws, ['list', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).map((s: { name: string }) => s.name)).toEqual(['good']);
    expect(r.stderr).toBe(
      [
        `warning: ${projectFile()}: mcpServers.bad.args[0]: Invalid input: expected string, received number; server "bad" skipped`,
        `warning: ${projectFile()}: mcpServers["bad name"]: invalid name: must be 1-64 characters of A-Z a-z 0-9 _ -; server "bad name" skipped`,
        '',
      ].join('\n'),
    );
  });

  it('reports a file that is not valid JSON with line and column, and never overwrites it', async () => {
    const broken = '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}\n';
    await writeFile(projectFile(), broken);
    const list = await runCli(ws, ['list']);
    expect(list.code).toBe(1);
    expect(list.stderr).toBe(
      `mcpkit: ${projectFile()}:4:5: invalid JSON (comma expected); fix the file by hand, mcpkit will not overwrite it\n`,
    );
    const add = await runCli(ws, ['add', 'c', '--', 'x']);
    expect(add.code).toBe(1);
    expect(add.stderr).toContain(':4:5: invalid JSON');
    expect(await readFile(projectFile(), 'utf8')).toBe(broken);
  });

  it('says how to add a server when none is configured', async () => {
    const r = await runCli(ws, ['list']);
    expect(r.stdout).toBe(
      'No MCP servers configured. Add one with: mcpkit add <name> -- <command> [args…]\n',
    );
  });
});

describe('mcpkit get', () => {
  it('shows the server in effect with masked secrets and what it shadows', async () => {
    await runCli(ws, [
      'add',
      'fs',
      '-e',
      'TOKEN=s3cret',
      '--timeout',
      '1500',
      '--cwd',
      '/srv',
      '--',
      'npx',
      'a b',
    ]);
    await runCli(ws, ['add', 'fs', '--scope', 'user', '--', 'node']);
    const r = await runCli(ws, ['get', 'fs']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'fs',
        `  scope:      project (${projectFile()})`,
        '  transport:  stdio',
        '  command:    npx',
        "  args:       'a b'",
        '  env:        TOKEN=***',
        '  cwd:        /srv',
        '  timeout:    1500 ms',
        `  shadows:    user scope entry (${userFile()})`,
        '',
      ].join('\n'),
    );
    const user = await runCli(ws, ['get', 'fs', '--scope', 'user', '--json']);
    expect(JSON.parse(user.stdout)).toMatchObject({
      scope: 'user',
      shadowed: true,
      entry: { command: 'node' },
    });
  });

  it('expands ${VAR} and ${VAR:-default} with --expand, never in the file', async () => {
    await runCli(ws, [
      'add-json',
      'db',
      '{"command":"${BIN_DIR:-/opt/bin}/db","args":["--url","${DB_URL}"],"env":{"TOKEN":"${TOKEN:-none}"}}',
    ]);
    const r = await runCli(ws, ['get', 'db', '--expand', '--json', '--show-secrets'], {
      DB_URL: 'postgres://x',
      TOKEN: '',
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).entry).toEqual({
      command: '/opt/bin/db',
      args: ['--url', 'postgres://x'],
      env: { TOKEN: 'none' },
    });
    expect((await readJson(projectFile())).mcpServers.db.args).toEqual(['--url', '${DB_URL}']);
  });

  it('names the missing variable and the server when one has no default', async () => {
    await runCli(ws, ['add-json', 'db', '{"command":"db","args":["${DB_URL}"],"env":{"K":"${API_KEY}"}}']);
    const r = await runCli(ws, ['get', 'db', '--expand']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'mcpkit: server "db": environment variable DB_URL (in args[0]), API_KEY (in env.K) is not set; set it or give a default with ${NAME:-default}\n',
    );
  });

  it('fails clearly for an unknown name', async () => {
    const r = await runCli(ws, ['get', 'nope']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `mcpkit: no server named "nope" in ${projectFile()} or ${userFile()}; see "mcpkit list"\n`,
    );
  });
});

describe('mcpkit remove', () => {
  it('removes from the scope that has it, keeping the rest', async () => {
    await runCli(ws, ['add', 'a', '--', 'x']);
    await runCli(ws, ['add', 'b', '--scope', 'user', '--', 'y']);
    const r = await runCli(ws, ['remove', 'b']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Removed server "b" from user scope (${userFile()})\n`);
    expect(await readJson(userFile())).toEqual({ mcpServers: {} });
    expect(await readJson(projectFile())).toEqual({ mcpServers: { a: { command: 'x' } } });
  });

  it('asks for --scope when the name is in both scopes', async () => {
    await runCli(ws, ['add', 'a', '--', 'x']);
    await runCli(ws, ['add', 'a', '--scope', 'user', '--', 'y']);
    const r = await runCli(ws, ['remove', 'a']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'mcpkit: "a" is defined in both project and user scope; say which with --scope project or --scope user\n',
    );
    expect((await runCli(ws, ['remove', 'a', '--scope', 'user'])).code).toBe(0);
    expect(await readJson(projectFile())).toEqual({ mcpServers: { a: { command: 'x' } } });
  });

  it('removes an entry that is invalid (and so skipped by list)', async () => {
    await writeFile(projectFile(), '{"mcpServers":{"broken":{"args":[]},"ok":{"command":"o"}}}');
    expect((await runCli(ws, ['remove', 'broken'])).code).toBe(0);
    expect(await readJson(projectFile())).toEqual({ mcpServers: { ok: { command: 'o' } } });
  });

  it('fails for a name in no scope', async () => {
    const r = await runCli(ws, ['remove', 'ghost']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('mcpkit: no server named "ghost" in project or user scope; see "mcpkit list"\n');
  });
});

describe('the CLI shell', () => {
  it('prints its version and help with exit 0', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    const version = await runCli(ws, ['--version']);
    expect(version).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    const help = await runCli(ws, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('add-json [options] <name> <json>');
  });

  it('exits 2 on an unknown command or option', async () => {
    expect((await runCli(ws, ['frobnicate'])).code).toBe(2);
    const r = await runCli(ws, ['list', '--nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--nope'");
  });
});
