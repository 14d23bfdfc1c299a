import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkspace, type Workspace } from '../helpers/cli.js';
import { runInProcess } from './run-in-process.js';

let ws: Workspace;
let file: string;
beforeEach(async () => {
  ws = await createWorkspace();
  file = join(ws.home, '.codex', 'config.toml');
  await mkdir(join(ws.home, '.codex'), { recursive: true });
});
afterEach(async () => {
  await ws.cleanup();
});

/** Imports the Codex file into user scope, then edits one server there as a user would. */
async function importAndEdit(text: string, name: string, args: string[]): Promise<void> {
  await writeFile(file, text);
  const imported = await runInProcess(ws, ['import', 'codex', '--scope', 'user']);
  expect(imported.code, imported.stderr).toBe(0);
  const userFile = join(ws.userDir, 'config.json');
  const config = JSON.parse(await readFile(userFile, 'utf8'));
  config.mcpServers[name].args = args;
  await writeFile(userFile, JSON.stringify(config, null, 2));
}

describe('export --write of a renamed server (Codex)', () => {
  it('replaces the table under the name the file gives it, not a second copy under the new name', async () => {
    const text = '# mine\n[mcp_servers."my.notes"]\ncommand = "notes"\nargs = ["--x"]\n';
    await importAndEdit(text, 'my-notes', ['--y']);
    const r = await runInProcess(ws, ['export', 'codex', '--write']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Exported 1 server to ${file}: my-notes (replaced)\n`);
    expect(await readFile(file, 'utf8')).toBe(
      '# mine\n[mcp_servers."my.notes"]\ncommand = "notes"\nargs = [ "--y" ]\n',
    );
  });

  it('leaves a renamed inline server byte for byte when it reports it unchanged', async () => {
    const text = [
      '# my servers',
      '[mcp_servers]',
      '"my.notes" = { command = "notes", args = ["--x"] }  # notes',
      'other = { command = "o" }',
      '',
    ].join('\n');
    await importAndEdit(text, 'other', ['-v']);
    const r = await runInProcess(ws, ['export', 'codex', '--write']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`Exported 2 servers to ${file}: my-notes (unchanged), other (replaced)\n`);
    expect(await readFile(file, 'utf8')).toBe(
      text.replace('other = { command = "o" }', 'other = { command = "o", args = [ "-v" ] }'),
    );
  });

  it('refuses in one line, writing nothing, when it cannot edit the file in place', async () => {
    const text = '# kept\nmcp_servers = { "my.notes" = { command = "notes" }, other = { command = "o" } }\n';
    await importAndEdit(text, 'other', ['-v']);
    const r = await runInProcess(ws, ['export', 'codex', '--write']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `mcpkit: ${file}: mcp_servers is written in a shape mcpkit cannot edit in place (the whole table inline, dotted keys, or an inline table across lines); nothing written — write each server as a [mcp_servers.NAME] table, or paste what \`mcpkit export codex\` prints\n`,
    );
    expect(await readFile(file, 'utf8')).toBe(text);
  });
});
