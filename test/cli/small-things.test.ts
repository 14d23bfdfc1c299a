import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { displayWords } from '../../src/cli/format.js';
import { Runtime } from '../../src/client/index.js';
import { runInProcess } from '../config/run-in-process.js';
import { CLI, type Workspace } from '../helpers/cli.js';
import { test as it } from '../helpers/fixtures.js';
import { everythingWords } from '../helpers/servers.js';

let ws: Workspace;
it.beforeEach(({ workspace }) => {
  ws = workspace;
});

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

describe('servers mcpkit serves report its version in serverInfo (it was "1")', () => {
  it('gateway, search-server, and a bridge whose contract gives no version', async () => {
    const contract = join(ws.project, 'contract.yaml');
    await writeFile(
      contract,
      'name: versionless\nprogram: node\ntools:\n  v:\n    description: node --version\n    argv: [--version]\n',
    );
    const runtime = await Runtime.create({
      servers: [
        {
          name: 'gateway',
          entry: {
            command: process.execPath,
            args: [CLI, 'gateway', '--no-search', '--no-watch'],
            cwd: ws.project,
          },
        },
        {
          name: 'search',
          entry: { command: process.execPath, args: [CLI, 'search-server', ws.project, '--no-vectors'] },
        },
        { name: 'bridge', entry: { command: process.execPath, args: [CLI, 'bridge', contract] } },
      ],
      env: ws.env,
    });
    try {
      expect(runtime.servers().map((s) => s.serverInfo)).toEqual([
        { name: 'mcpkit-gateway', version: VERSION },
        { name: 'mcpkit-search', version: VERSION },
        { name: 'versionless', version: VERSION },
      ]);
    } finally {
      await runtime.close();
    }
  });
});

describe('ping --json and tools --long', () => {
  it('ping --json: one object per server, the time as a number', async () => {
    const r = await runInProcess(ws, ['ping', '--json', '--', ...everythingWords]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        server: displayWords(everythingWords),
        status: 'ok',
        ms: expect.any(Number),
        protocolVersion: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      },
    ]);
  });

  it("tools --long shows each tool's parameters: name, type (? when optional), description", async () => {
    const r = await runInProcess(ws, ['tools', '--long', '--', ...everythingWords]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      '  echo  Echoes back the input string\n     message  string  Message to echo\n',
    );
    expect(r.stdout).toMatch(/\n {5}includeImage +boolean\? +Whether to include an example image\n/);
  });

  it('tools --json carries each whole tool, parameters (inputSchema) included', async () => {
    const r = await runInProcess(ws, ['tools', '--json', '--', ...everythingWords]);
    const [report] = JSON.parse(r.stdout) as { tools: { name: string; inputSchema: unknown }[] }[];
    expect(report?.tools.find((t) => t.name === 'echo')?.inputSchema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    });
  });
});

describe('help and wording', () => {
  it.each(['tools', 'call', 'resources', 'read', 'prompts', 'prompt', 'ping', 'check'])(
    '%s --help says how to give an ad-hoc server after --',
    async (command) => {
      const r = await runInProcess(ws, [command, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/after --/);
      expect(r.stdout).toMatch(
        new RegExp(`mcpkit ${command} .*-- npx -y @modelcontextprotocol/server-everything`),
      );
    },
  );

  it('call --help explains that with -- the first word is the tool', async () => {
    const r = await runInProcess(ws, ['call', '--help']);
    expect(r.stdout).toContain('leave out <server>: the first word is then the tool');
  });

  it('"1 server", not "1 servers"', async () => {
    await writeFile(
      join(ws.project, '.mcp.json'),
      JSON.stringify({ mcpServers: { broken: { command: 'mcpkit-no-such-command-xyz' } } }),
    );
    const r = await runInProcess(ws, ['ping']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('mcpkit: 1 of 1 server failed: broken\n');
  });
});

describe('bridge lint', () => {
  it('warns when a program is not on PATH, and still lints', async () => {
    const contract = join(ws.project, 'contract.yaml');
    await writeFile(
      contract,
      [
        'name: t',
        'program: mcpkit-no-such-program-xyz',
        'tools:',
        '  a: { description: A, argv: [x] }',
        '  b: { description: B, argv: [y] }',
        '  c: { description: C, program: node, argv: [z] }',
        '',
      ].join('\n'),
    );
    const r = await runInProcess(ws, ['bridge', 'lint', contract]);
    expect(r).toEqual({
      code: 0,
      stdout: `${contract}: ok, 3 tools\n`,
      stderr: `warning: ${contract}: program "mcpkit-no-such-program-xyz" is not found on PATH; calls to a, b will fail until it is installed\n`,
    });
  });
});
