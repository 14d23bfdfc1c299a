import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../config/run-in-process.js';
import { CLI, createWorkspace, type Workspace } from '../helpers/cli.js';
import { memory } from '../helpers/servers.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

describe('a server mcpkit starts sees the same config as mcpkit', () => {
  it('`mcpkit tools -- mcpkit gateway` serves the user-scope servers `mcpkit list` shows', async () => {
    // The workspace keeps mcpkit's user config in MCPKIT_CONFIG_DIR, away from $HOME/.config: a child that
    // lost the variable would read another (empty) config.
    const added = await runInProcess(ws, [
      'add',
      '-s',
      'user',
      'mem',
      '--',
      memory.command,
      ...(memory.args ?? []),
    ]);
    expect(added.code).toBe(0);
    const listed = await runInProcess(ws, [
      'tools',
      '--json',
      '--',
      process.execPath,
      CLI,
      'gateway',
      '--no-search',
    ]);
    expect({ code: listed.code, stderr: listed.stderr }).toMatchObject({ code: 0 });
    const tools = (JSON.parse(listed.stdout) as { tools: { name: string }[] }[])[0]?.tools ?? [];
    expect(tools.map((t) => t.name)).toContain('mem__read_graph');
  });
});
