import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GATEWAY_LOOP } from '../../src/config/index.js';
import { createWorkspace, type Workspace } from '../helpers/cli.js';
import { runInProcess } from './run-in-process.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

const projectText = () => readFile(join(ws.project, '.mcp.json'), 'utf8').catch(() => undefined);

describe('an entry that runs the gateway never enters the config it serves', () => {
  it('import skips it with a warning and imports the rest', async () => {
    const file = join(ws.home, '.cursor', 'mcp.json');
    await mkdir(join(ws.home, '.cursor'), { recursive: true });
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: {
          mcpkit: { command: 'npx', args: ['-y', 'mcpkit', 'gateway'] },
          local: {
            command: 'node',
            args: ['/opt/mcpkit/dist/bin/main.js', 'gateway', '--transport', 'stdio'],
          },
          memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
        },
      }),
    );
    const r = await runInProcess(ws, ['import', 'cursor']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Imported 1 server from');
    expect(r.stderr).toBe(`Skipped 2:\n  - mcpkit: ${GATEWAY_LOOP}\n  - local: ${GATEWAY_LOOP}\n`);
    expect(JSON.parse((await projectText()) ?? '{}').mcpServers).toEqual({
      memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
    });
  });

  it.each([
    [['add', 'gw', '--', 'npx', 'mcpkit', 'gateway']],
    [['add', 'gw', '--', 'mcpkit', 'gateway']],
    [['add-json', 'gw', '{"command":"npx","args":["-y","mcpkit","gateway"]}']],
  ])('%j is refused with one line and exit 1, nothing written', async (args) => {
    const r = await runInProcess(ws, args);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`mcpkit: server "gw" ${GATEWAY_LOOP}\n`);
    expect(await projectText()).toBeUndefined();
  });
});
