import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkspace, type Workspace } from '../helpers/cli.js';
import { runInProcess } from './run-in-process.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

const OPENAI = 'sk-proj4Fq9ZtX2mLw8RvB3nKc7';
const GITHUB = 'ghp_9aZ3kQ7mW2xR8tL5vN1bC4dF6gH0jY2pS';
const LINEAR = 'lin_api_Q2w3E4r5T6y7U8i9O0pA1sD';
const SHARED = 'hunter2-but-longer';
const OTHER = 'another-password-here';

/** A user-level Cursor file as people keep it: secrets written out. */
const CURSOR = {
  mcpServers: {
    notes: {
      command: 'npx',
      args: ['-y', 'notes-mcp', '--api-key', LINEAR],
      env: { API_KEY: OPENAI, LOG_LEVEL: 'info', DB_PASSWORD: SHARED },
    },
    github: {
      url: `https://api.example.com/mcp?api_key=${GITHUB}&region=eu`,
      headers: { Authorization: `Bearer ${GITHUB}`, 'X-Team': 'core' },
    },
    db: { command: 'db-mcp', env: { DB_PASSWORD: OTHER, HOME_DIR: '/home/me' } },
  },
};

async function placeCursor(): Promise<string> {
  const file = join(ws.home, '.cursor', 'mcp.json');
  await mkdir(join(ws.home, '.cursor'), { recursive: true });
  await writeFile(file, JSON.stringify(CURSOR, null, 2));
  return file;
}

describe('import of secrets', () => {
  it('writes ${VAR} references into the project file and names each variable, never the value', async () => {
    const source = await placeCursor();
    const target = join(ws.project, '.mcp.json');
    const r = await runInProcess(ws, ['import', 'cursor']);
    expect(r.code, r.stderr).toBe(0);
    const line = (server: string, where: string, variable: string) =>
      `warning: ${server}: ${where} holds a secret; written to ${target} as \${${variable}}: set ${variable} where mcpkit runs (the value is in ${source})`;
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      line('notes', 'env.API_KEY', 'API_KEY'),
      line('notes', 'env.DB_PASSWORD', 'DB_PASSWORD'),
      line('notes', 'args[3]', 'NOTES_API_KEY'),
      line('github', 'url ?api_key', 'GITHUB_API_KEY'),
      line('github', 'headers.Authorization', 'GITHUB_AUTHORIZATION'),
      // Another server's DB_PASSWORD with another value gets a variable of its own.
      line('db', 'env.DB_PASSWORD', 'DB_DB_PASSWORD'),
    ]);
    const written = await readFile(target, 'utf8');
    for (const secret of [OPENAI, GITHUB, LINEAR, SHARED, OTHER]) {
      expect(written).not.toContain(secret);
      expect(r.stdout + r.stderr).not.toContain(secret);
    }
    expect(JSON.parse(written).mcpServers).toEqual({
      notes: {
        command: 'npx',
        args: ['-y', 'notes-mcp', '--api-key', '${NOTES_API_KEY}'],
        env: { API_KEY: '${API_KEY}', LOG_LEVEL: 'info', DB_PASSWORD: '${DB_PASSWORD}' },
      },
      github: {
        type: 'http',
        url: 'https://api.example.com/mcp?api_key=${GITHUB_API_KEY}&region=eu',
        headers: { Authorization: 'Bearer ${GITHUB_AUTHORIZATION}', 'X-Team': 'core' },
      },
      db: { command: 'db-mcp', env: { DB_PASSWORD: '${DB_DB_PASSWORD}', HOME_DIR: '/home/me' } },
    });
  });

  it('says the same with --dry-run and writes nothing', async () => {
    await placeCursor();
    const r = await runInProcess(ws, ['import', 'cursor', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: notes: env.API_KEY holds a secret; would be written to ');
    await expect(readFile(join(ws.project, '.mcp.json'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it("keeps the values at user scope: that file is the user's own, like the one they came from", async () => {
    await placeCursor();
    const r = await runInProcess(ws, ['import', 'cursor', '--scope', 'user']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const user = JSON.parse(await readFile(join(ws.userDir, 'config.json'), 'utf8'));
    expect(user.mcpServers.notes.env.API_KEY).toBe(OPENAI);
  });
});
