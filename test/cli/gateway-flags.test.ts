import { existsSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../config/run-in-process.js';
import { createWorkspace, type Workspace } from '../helpers/cli.js';
import { writeProjectConfig } from '../helpers/gateway.js';

let ws: Workspace;
let mark: string;
beforeEach(async () => {
  ws = await createWorkspace();
  mark = join(ws.root, 'upstream-started');
  // An upstream that leaves a mark the moment it is spawned.
  await writeProjectConfig(ws, {
    marker: {
      command: process.execPath,
      args: [
        '-e',
        `require('node:fs').writeFileSync(${JSON.stringify(mark)}, 'x'); setInterval(() => {}, 1000)`,
      ],
    },
  });
});
afterEach(async () => {
  await ws.cleanup();
});

describe('gateway flags are checked before anything starts', () => {
  it('a --tokens file that does not exist: one line, exit 2, no upstream spawned', async () => {
    const tokens = join(ws.root, 'missing-tokens.txt');
    const r = await runInProcess(ws, ['gateway', '-t', 'http', '--port', '0', '--tokens', tokens]);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      `mcpkit: --tokens: cannot read the token file ${tokens} (ENOENT)`,
    ]);
    expect(existsSync(mark)).toBe(false);
  });

  it('a --tokens file with a short token: one line naming the line, never the token, no upstream spawned', async () => {
    const tokens = join(ws.root, 'tokens.txt');
    await writeFile(tokens, 'ci:short\n');
    await chmod(tokens, 0o600);
    const r = await runInProcess(ws, ['gateway', '-t', 'http', '--port', '0', '--tokens', tokens]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^mcpkit: --tokens: ${tokens}:1: the token of "ci" must be at least`),
    );
    expect(r.stderr).not.toContain('short');
    expect(existsSync(mark)).toBe(false);
  });

  it.each(['--audit', '--tool-index'])(
    '%s under a file, not a directory: one line, exit 2, no upstream spawned',
    async (flag) => {
      const file = join(ws.root, 'plain.txt');
      await writeFile(file, 'not a directory');
      const target = join(file, 'out.log');
      const r = await runInProcess(ws, ['gateway', flag, target]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`mcpkit: ${flag}: cannot write ${target} (${file} is not a directory)\n`);
      expect(existsSync(mark)).toBe(false);
    },
  );
});
