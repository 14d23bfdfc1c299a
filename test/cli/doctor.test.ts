import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diagnose, looksLikeToken, maskArgs, secretArgs } from '../../src/config/index.js';
import { runInProcess } from '../config/run-in-process.js';
import { createWorkspace, type Workspace } from '../helpers/cli.js';
import { fixture } from '../helpers/servers.js';

let ws: Workspace;
let bin: string;
beforeEach(async () => {
  ws = await createWorkspace();
  bin = join(ws.root, 'bin');
  await mkdir(bin);
  // The shell's PATH: a directory no GUI client has, then the real one.
  ws.env.PATH = `${bin}:${process.env.PATH ?? ''}`;
});
afterEach(async () => {
  await ws.cleanup();
});

const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

async function place(file: string, value: unknown): Promise<string> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(value, null, 2));
  return file;
}

async function tool(name: string, body = 'exit 0'): Promise<string> {
  const file = join(bin, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

/** A machine with one of every problem doctor knows. */
async function brokenMachine() {
  const notes = await tool('mcpkit-doctor-notes');
  const gh = await tool('mcpkit-doctor-gh');
  const db = await tool('mcpkit-doctor-db');
  const mcpkit = await tool('mcpkit');
  const desktop = await place(join(ws.xdg, 'Claude', 'claude_desktop_config.json'), {
    mcpServers: {
      notes: { command: 'mcpkit-doctor-notes' },
      gh: { command: gh, args: ['--token', TOKEN], env: { GITHUB_TOKEN: TOKEN } },
    },
  });
  const cursor = await place(join(ws.project, '.cursor', 'mcp.json'), {
    mcpServers: {
      db: {
        command: db,
        args: ['${workspaceFolder}/schema.sql'],
        cwd: './data',
        env: { DB_URL: '${env:MCPKIT_DOCTOR_UNSET}' },
      },
    },
  });
  const own = await place(join(ws.project, '.mcp.json'), {
    mcpServers: { gw: { command: mcpkit, args: ['gateway'] }, notes: { command: notes, args: ['--other'] } },
  });
  return { desktop, cursor, own, notes, gh, db };
}

describe('mcpkit doctor', () => {
  it('reports each problem with what to change, exits 1, and never prints a secret', async () => {
    const { desktop, cursor, own, notes } = await brokenMachine();
    const r = await runInProcess(ws, ['doctor']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('mcpkit: doctor found 7 problems; each says what to change\n');
    const gui = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      `PATH assumed for GUI clients (Claude Desktop, Cursor, VS Code, Windsurf, Cline) on ${process.platform}: ${gui}`,
      "CLI clients (Claude Code, Codex, Gemini CLI) and mcpkit: your shell's PATH",
      '',
    ]);
    expect(lines.slice(3)).toEqual([
      `Claude Desktop: ${desktop}`,
      `  !!  notes: "mcpkit-doctor-notes" is not on the PATH Claude Desktop gets (${gui}); it is only on your shell's PATH; fix: use the absolute path "${notes}"`,
      `  !!  gh: args[1] holds a secret, visible to every user of this machine in the process list (ps); fix: pass it in env instead ("\${NAME}") if the server reads it from there`,
      `  !!  gh: env.GITHUB_TOKEN holds a secret written out in the file; fix: Claude Desktop cannot read it from the environment: keep ${desktop} private (chmod 600), or run the server through mcpkit with "\${GITHUB_TOKEN}"`,
      `Cursor: ${cursor}`,
      `  !!  db: cwd "./data" is relative: it resolves against wherever the client was started; fix: use an absolute path`,
      `  !!  db: env.DB_URL uses \${MCPKIT_DOCTOR_UNSET}, and MCPKIT_DOCTOR_UNSET is not set in this environment; fix: set MCPKIT_DOCTOR_UNSET where Cursor starts (GUI apps do not read your shell profile) or give a default`,
      `mcpkit: ${own}`,
      '  !!  gw: runs `mcpkit gateway` from inside the config the gateway serves: it would start itself again and again; fix: remove it (mcpkit remove gw) and give the gateway to your client instead',
      '  ok  notes',
      'Across clients:',
      `  !!  notes: "notes" means different servers in different places (Claude Desktop: mcpkit-doctor-notes; mcpkit: ${notes} --other); fix: make them the same (mcpkit import, then mcpkit export <client> --write) or rename one`,
      '',
      '7 problems in 5 servers.',
      // An offer, not a problem: mcpkit's own stdio server may run sandboxed (the gateway entry is not offered).
      'Sandbox: mcpkit runs 1 stdio server with all your rights (notes); to run it in a sandbox: mcpkit sandbox on --all (docs/sandbox.md)',
      '',
    ]);
    expect(r.stdout).not.toContain(TOKEN);
  });

  it('--json has the same findings, secrets masked', async () => {
    const { gh } = await brokenMachine();
    const r = await runInProcess(ws, ['doctor', '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain(TOKEN);
    const report = JSON.parse(r.stdout);
    expect(report.ok).toBe(false);
    expect(report.findings.map((f: { check: string }) => f.check).sort()).toEqual([
      'command-not-on-gui-path',
      'gateway-in-own-config',
      'name-conflict',
      'relative-cwd',
      'secret-in-args',
      'secret-in-env',
      'unset-variable',
    ]);
    expect(report.servers).toContainEqual({
      source: 'claude-desktop',
      file: join(ws.xdg, 'Claude', 'claude_desktop_config.json'),
      name: 'gh',
      target: `${gh} --token ***`,
    });
  });

  it('exits 0 on a clean machine, and --client reads only that client', async () => {
    const clean = await tool('mcpkit-doctor-clean');
    await place(join(ws.home, '.cursor', 'mcp.json'), { mcpServers: { clean: { command: clean } } });
    await place(join(ws.xdg, 'Claude', 'claude_desktop_config.json'), {
      mcpServers: { bad: { command: 'mcpkit-doctor-nowhere' } },
    });
    const r = await runInProcess(ws, ['doctor', '--client', 'cursor']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').slice(3)).toEqual([
      `Cursor: ${join(ws.home, '.cursor', 'mcp.json')}`,
      '  ok  clean',
      '',
      'No problems in 1 server.',
      '',
    ]);
    const all = await runInProcess(ws, ['doctor', '--client', 'cursor,claude-desktop']);
    expect(all.code).toBe(1);
    expect(all.stdout).toContain(
      `  !!  bad: command "mcpkit-doctor-nowhere" is not found on the PATH Claude Desktop gets`,
    );
    const wrong = await runInProcess(ws, ['doctor', '--client', 'emacs']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--client: unknown client "emacs"; one of: claude-code');
  });

  it('flags npx without -y', async () => {
    await place(join(ws.home, '.gemini', 'settings.json'), {
      mcpServers: { mem: { command: 'npx', args: ['@modelcontextprotocol/server-memory'] } },
    });
    const r = await runInProcess(ws, ['doctor', '--client', 'gemini']);
    expect(r.stdout).toContain(
      '  !!  mem: runs npx without -y: npx asks before installing, and a client cannot show the prompt, so it hangs; fix: add "-y" as the first argument',
    );
  });

  it('--probe shakes hands with each server and reports the time and protocol, or why not', async () => {
    const fails = await tool('mcpkit-doctor-fails', `echo "Error: cannot open ${TOKEN}" >&2; exit 3`);
    await place(join(ws.project, '.mcp.json'), {
      mcpServers: {
        up: { command: process.execPath, args: [fixture('servers/gateway-upstream.mjs')] },
        down: { command: fails, args: ['--key', TOKEN] },
      },
    });
    const r = await runInProcess(ws, ['doctor', '--probe', '--client', 'mcpkit']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/\n {2}ok {2}up \(handshake \d+ ms, protocol \d{4}-\d\d-\d\d, upstream\)\n/);
    expect(r.stdout).toMatch(/\n {2}!! {2}down: no handshake: .+; fix: run it by hand/);
    expect(r.stdout).not.toContain(TOKEN);
    const json = await runInProcess(ws, ['doctor', '--probe', '--client', 'mcpkit', '--json']);
    expect(json.stdout).not.toContain(TOKEN);
    const probes = JSON.parse(json.stdout).probes;
    expect(probes).toHaveLength(2);
    expect(probes[0]).toMatchObject({ source: 'mcpkit', server: 'up', ok: true });
    expect(probes[1]).toMatchObject({ source: 'mcpkit', server: 'down', ok: false });
  });
});

describe('diagnose', () => {
  it('assumes launchd PATH for GUI clients on macOS and names the absolute path on the shell PATH', async () => {
    const notes = await tool('mcpkit-doctor-notes');
    await place(join(ws.home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json'), {
      mcpServers: { notes: { command: 'mcpkit-doctor-notes' } },
    });
    const report = await diagnose({
      cwd: ws.project,
      env: ws.env,
      platform: 'darwin',
      sources: ['claude-desktop'],
    });
    expect(report.guiPath).toBe('/usr/bin:/bin:/usr/sbin:/sbin');
    expect(report.findings).toEqual([
      expect.objectContaining({
        check: 'command-not-on-gui-path',
        server: 'notes',
        fix: `use the absolute path "${notes}"`,
      }),
    ]);
  });

  it('does not flag a CLI client for a command on the shell PATH', async () => {
    await tool('mcpkit-doctor-cli');
    await place(join(ws.home, '.claude.json'), { mcpServers: { cli: { command: 'mcpkit-doctor-cli' } } });
    const report = await diagnose({ cwd: ws.project, env: ws.env, sources: ['claude-code'] });
    expect(report.findings).toEqual([]);
    expect(report.servers.map((s) => s.name)).toEqual(['cli']);
  });

  it('reports a config file that does not parse', async () => {
    const file = join(ws.home, '.cursor', 'mcp.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, '{"mcpServers": {,}}');
    const report = await diagnose({ cwd: ws.project, env: ws.env, sources: ['cursor'] });
    expect(report.findings).toEqual([expect.objectContaining({ check: 'unreadable', file })]);
  });
});

describe('secrets', () => {
  it('recognises tokens, not paths, hashes or words', () => {
    expect(looksLikeToken(TOKEN)).toBe(true);
    expect(looksLikeToken('sk-ant-api03-abcdefghijklmnopqrstuv')).toBe(true);
    expect(looksLikeToken('Bearer aB3dEfGhIjKlMnOpQrStUvWxYz0123456789')).toBe(true);
    expect(looksLikeToken('/home/me/projects/some-long-directory-name/x')).toBe(false);
    expect(looksLikeToken('3f786850e387550fdab836ed7e6dc881de23001b')).toBe(false);
    expect(looksLikeToken('@modelcontextprotocol/server-filesystem')).toBe(false);
  });

  it('finds secret arguments and masks them', () => {
    const args = [
      '-y',
      'pkg',
      '--api-key',
      'abc123secret',
      `--token=${TOKEN}`,
      '--header',
      'Authorization: Bearer xyz12345',
      '--port',
      '8080',
    ];
    expect(secretArgs(args)).toEqual([3, 4, 6]);
    expect(maskArgs(args)).toEqual([
      '-y',
      'pkg',
      '--api-key',
      '***',
      '--token=***',
      '--header',
      'Authorization: ***',
      '--port',
      '8080',
    ]);
  });
});
