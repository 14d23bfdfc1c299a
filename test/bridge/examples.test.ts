import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../src/check/index.js';
import { Runtime } from '../../src/client/index.js';
import { CLI, createWorkspace, runCli, type Workspace } from '../helpers/cli.js';
import { fixture, startBridgeHttp } from '../helpers/servers.js';

const example = (name: string) => fileURLToPath(new URL(`../../examples/${name}`, import.meta.url));
const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

let repo: string;
let ws: Workspace;
beforeAll(async () => {
  ws = await createWorkspace();
  repo = await mkdtemp(join(tmpdir(), 'mcpkit-git-'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo, ...args], {
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'Ada',
        GIT_AUTHOR_EMAIL: 'ada@example.com',
        GIT_COMMITTER_NAME: 'Ada',
        GIT_COMMITTER_EMAIL: 'ada@example.com',
      },
    });
  git('init', '-q', '-b', 'main');
  await writeFile(join(repo, 'hello.txt'), 'hello\nworld\n');
  git('add', '.');
  git('commit', '-q', '-m', 'first commit');
  await writeFile(join(repo, 'hello.txt'), 'hello\nthere\n');
  git('commit', '-q', '-am', 'second commit');
  await writeFile(join(repo, 'hello.txt'), 'hello\nchanged\n');
});
afterAll(async () => {
  await rm(repo, { recursive: true, force: true });
  await ws.cleanup();
});

describe('examples/git.yaml against a real repository', () => {
  it('status, log, diff, show, blame and grep', async () => {
    const rt = await Runtime.create({
      servers: [
        {
          name: 'git',
          entry: {
            command: process.execPath,
            args: [CLI, 'bridge', example('git.yaml'), '--set', `repo=${repo}`],
          },
        },
      ],
    });
    try {
      const git = rt.server('git');
      expect(textOf(await git.callTool('status'))).toBe('## main\n M hello.txt\n');
      const log = textOf(await git.callTool('log', { limit: 5 }));
      expect(
        log
          .split('\n')
          .filter(Boolean)
          .map((l) => l.replace(/^\w+ \S+ /, '')),
      ).toEqual(['Ada second commit', 'Ada first commit']);
      expect(textOf(await git.callTool('log', { grep: 'first' }))).toMatch(/first commit\n$/);
      expect(textOf(await git.callTool('diff'))).toContain('-there\n+changed');
      expect(textOf(await git.callTool('diff', { stat: true }))).toContain('hello.txt | 2 +-');
      expect(textOf(await git.callTool('show', { revision: 'HEAD~1' }))).toContain('first commit');
      expect(textOf(await git.callTool('blame', { file: 'hello.txt' }))).toContain('(Ada');
      expect(textOf(await git.callTool('grep', { pattern: 'h.llo' }))).toBe('hello.txt:1:hello\n');
      const none = await git.callTool('grep', { pattern: 'absent' });
      expect([none.isError, textOf(none)]).toEqual([undefined, '']);
      const sneaky = await git.callTool('show', { revision: '--output=/tmp/x' });
      expect(sneaky.isError).toBe(true);
      expect(textOf(sneaky)).toContain('argument revision');
    } finally {
      await rt.close();
    }
  });
});

describe('examples/jq.yaml with the real jq', () => {
  it('queries a file and returns keys as structured content', async () => {
    const data = join(repo, 'data.json');
    await writeFile(data, JSON.stringify({ items: [{ name: 'a' }, { name: 'b' }], total: 2 }));
    const rt = await Runtime.create({
      servers: [
        { name: 'jq', entry: { command: process.execPath, args: [CLI, 'bridge', example('jq.yaml')] } },
      ],
    });
    try {
      expect(
        textOf(await rt.server('jq').callTool('query', { filter: '.items[].name', file: data, raw: true })),
      ).toBe('a\nb\n');
      expect((await rt.server('jq').callTool('keys', { file: data })).structuredContent).toEqual({
        result: ['items', 'total'],
      });
      const broken = await rt.server('jq').callTool('query', { filter: '.[', file: data });
      expect(broken.isError).toBe(true);
      expect(textOf(broken)).toMatch(/^jq exited with code \d+\nstderr:\njq: error/);
    } finally {
      await rt.close();
    }
  });
});

describe('mcpkit bridge serving', () => {
  it('over stdio passes the check gates: generations, tools, robustness, progress, cancellation, hygiene', async () => {
    const r = await runCli(ws, [
      'check',
      '--json',
      '--only',
      'generations,tools,robustness,progress,cancellation,stdio-hygiene',
      '--slow-tool',
      'lines',
      '--args',
      '{"n":30}',
      '--',
      process.execPath,
      CLI,
      'bridge',
      fixture('bridge/contract.yaml'),
    ]);
    const report = JSON.parse(r.stdout) as CheckReport;
    expect(Object.fromEntries(report.gates.map((g) => [g.gate, g.status]))).toEqual({
      generations: 'PASS',
      tools: 'PASS',
      robustness: 'PASS',
      progress: 'PASS',
      cancellation: 'PASS',
      'stdio-hygiene': 'PASS',
    });
  });

  it('over HTTP on 127.0.0.1: reachable by the runtime, refuses a foreign Host/Origin', async () => {
    const bridge = await startBridgeHttp(fixture('bridge/contract.yaml'));
    try {
      const { url } = bridge;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const rt = await Runtime.create({ servers: [{ name: 'b', entry: { url } }] });
      try {
        expect(JSON.parse(textOf(await rt.server('b').callTool('argv', { who: 'http' })))).toEqual([
          'run',
          'http',
          '--',
        ]);
      } finally {
        await rt.close();
      }
      const r = await runCli(ws, ['check', '--json', '--only', 'http-security,robustness', '--url', url]);
      const report = JSON.parse(r.stdout) as CheckReport;
      expect(Object.fromEntries(report.gates.map((g) => [g.gate, g.status]))).toEqual({
        robustness: 'PASS',
        'http-security': 'PASS',
      });
    } finally {
      bridge.stop();
    }
  });

  it('bridge lint reports every problem with line:col and exits 1', async () => {
    const bad = join(ws.project, 'bad.yaml');
    await writeFile(
      bad,
      'name: x\nprogram: node\ntools:\n  t:\n    description: d\n    argv: [$nope]\n  u:\n    description: d\n    argv: [{ switch: --v, if: 3 }]\n',
    );
    const r = await runCli(ws, ['bridge', 'lint', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `mcpkit: invalid contract:\n${bad}:9:31: tools.u.argv[0].if: Invalid input: expected string, received number\n`,
    );
    await writeFile(bad, 'name: x\nprogram: node\ntools:\n  t:\n    description: d\n    argv: [$nope]\n');
    const refs = await runCli(ws, ['bridge', 'lint', bad]);
    expect(refs.stderr).toBe(
      `mcpkit: invalid contract:\n${bad}:6:12: tools.t.argv[0]: argument "nope" is not declared in args\n`,
    );
    await writeFile(bad, 'name: x\ntools: [\n');
    expect((await runCli(ws, ['bridge', 'lint', bad])).stderr).toMatch(
      new RegExp(`^mcpkit: invalid contract:\\n${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:1: `),
    );
    const ok = await runCli(ws, ['bridge', 'lint', example('git.yaml')]);
    expect(ok.stdout).toBe(`${example('git.yaml')}: ok, 6 tools\n`);
  });
});
