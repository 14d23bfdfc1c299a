import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyHints } from '../../src/config/index.js';
import { createWorkspace, type Workspace } from '../helpers/cli.js';
import { runInProcess } from './run-in-process.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

describe('keyHints', () => {
  it('names the known key a typo is close to, and leaves other tools keys alone', () => {
    expect(
      keyHints({ comand: 'x', arsg: [], tiemout: 1, Env: {}, envFile: '.env', autoApprove: [], trust: true }),
    ).toEqual([
      { key: 'comand', suggestion: 'command' },
      { key: 'arsg', suggestion: 'args' },
      { key: 'tiemout', suggestion: 'timeout' },
      { key: 'Env', suggestion: 'env' },
    ]);
  });
});

describe('add-json', () => {
  it('names an unknown key close to a known one and writes nothing', async () => {
    const r = await runInProcess(ws, ['add-json', 'x', '{"comand":"npx","args":["-y","pkg"]}']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'mcpkit: argument <json>: unknown key "comand": did you mean "command"?; nothing written\n',
    );
    await expect(readFile(join(ws.project, '.mcp.json'), 'utf8')).rejects.toThrow();
  });

  it('refuses a typo even when the entry is otherwise valid', async () => {
    const r = await runInProcess(ws, ['add-json', 'x', '{"command":"npx","startupTimout":5000}']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'mcpkit: argument <json>: unknown key "startupTimout": did you mean "startupTimeout"?; nothing written\n',
    );
  });

  it('keeps keys of other tools', async () => {
    const r = await runInProcess(ws, ['add-json', 'x', '{"command":"npx","envFile":".env"}']);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('list', () => {
  it('says which key was meant when a config entry is skipped', async () => {
    await mkdir(ws.project, { recursive: true });
    await writeFile(join(ws.project, '.mcp.json'), JSON.stringify({ mcpServers: { x: { comand: 'a' } } }));
    const r = await runInProcess(ws, ['list']);
    expect(r.stderr).toContain(
      'mcpServers.x: needs "command" (a stdio server) or "url" (an http/sse server); unknown key "comand" at mcpServers.x: did you mean "command"?; server "x" skipped',
    );
  });
});
