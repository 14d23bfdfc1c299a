import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../src/check/index.js';
import { Runtime } from '../../src/client/index.js';
import { CLI, createWorkspace, runCli, type Workspace } from '../helpers/cli.js';
import { hasEngine, missingEngines } from '../helpers/engines.js';
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
  if (!hasEngine('git')) return; // its tests are skipped, with a line saying so
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

describe.skipIf(missingEngines('git'))('examples/git.yaml against a real repository', () => {
  it('status, log, diff, show, blame and grep', async () => {
    const rt = await Runtime.create({
      servers: [
        {
          name: 'git',
          entry: {
            command: process.execPath,
            args: [CLI, 'bridge', example('git.yaml'), '--set', `repo=${repo}`],
            env: { GIT_REPOS: repo },
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
      // Only repositories under GIT_REPOS, and files inside the repository.
      const elsewhere = await git.callTool('status', { repo: '/' });
      expect([elsewhere.isError, textOf(elsewhere)]).toEqual([
        true,
        `Invalid arguments for status; nothing was run:\n- argument repo: "/" resolves to /, outside the allowed roots ${repo}`,
      ]);
      const escaping = await git.callTool('blame', { file: '../../../etc/passwd' });
      expect(textOf(escaping)).toMatch(
        /^Invalid arguments for blame; nothing was run:\n- argument file: "..\/..\/..\/etc\/passwd" resolves to \/etc\/passwd, outside repo/,
      );
    } finally {
      await rt.close();
    }
  });

  it('runs no program a hostile repository configures (core.fsmonitor, diff.external, textconv, hooks)', async () => {
    const base = await realpath(await mkdtemp(join(tmpdir(), 'mcpkit-hostile-')));
    try {
      const hostile = join(base, 'repos', 'hostile');
      const markers = join(base, 'markers');
      await mkdir(hostile, { recursive: true });
      await mkdir(markers);
      const script = async (name: string) => {
        const file = join(base, `${name}.sh`);
        await writeFile(file, `#!/bin/sh\ntouch ${join(markers, name)}\n`);
        await chmod(file, 0o755);
        return file;
      };
      const git = (...args: string[]) =>
        execFileSync('git', [
          '-C',
          hostile,
          '-c',
          'user.name=Eve',
          '-c',
          'user.email=eve@example.com',
          ...args,
        ]);
      git('init', '-q', '-b', 'main');
      await writeFile(join(hostile, 'a.txt'), 'one\n');
      await writeFile(join(hostile, '.gitattributes'), '*.txt diff=conv\n');
      git('add', '.');
      git('commit', '-q', '-m', 'first');
      await writeFile(join(hostile, 'a.txt'), 'two\n');
      git('config', 'core.fsmonitor', await script('fsmonitor'));
      git('config', 'diff.external', await script('external'));
      git('config', 'diff.conv.textconv', await script('textconv'));
      git('config', 'core.hooksPath', base);
      const rt = await Runtime.create({
        servers: [
          {
            name: 'git',
            entry: {
              command: process.execPath,
              args: [CLI, 'bridge', example('git.yaml'), '--set', `repo=${hostile}`],
              env: { GIT_REPOS: join(base, 'repos') },
            },
          },
        ],
      });
      try {
        const server = rt.server('git');
        expect(textOf(await server.callTool('status'))).toBe('## main\n M a.txt\n');
        expect(textOf(await server.callTool('diff'))).toContain('-one\n+two');
        expect(textOf(await server.callTool('show', { revision: 'HEAD' }))).toContain('+one');
        expect(textOf(await server.callTool('blame', { file: 'a.txt' }))).toMatch(
          /Not Committed Yet .*\) two\n$/,
        );
        expect(textOf(await server.callTool('log'))).toContain('first');
        expect(textOf(await server.callTool('grep', { pattern: 'two' }))).toBe('a.txt:1:two\n');
      } finally {
        await rt.close();
      }
      // The same repository with plain git runs them: the scripts work, the example turns them off.
      expect(await readdir(markers)).toEqual([]);
      execFileSync('git', ['-C', hostile, 'diff'], { stdio: 'ignore' });
      expect((await readdir(markers)).sort()).toEqual(['external', 'fsmonitor']);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});

describe.skipIf(missingEngines('jq'))('examples/jq.yaml with the real jq', () => {
  it('queries a file and returns keys as structured content', async () => {
    const data = join(repo, 'data.json');
    await writeFile(data, JSON.stringify({ items: [{ name: 'a' }, { name: 'b' }], total: 2 }));
    const rt = await Runtime.create({
      servers: [
        {
          name: 'jq',
          entry: {
            command: process.execPath,
            args: [CLI, 'bridge', example('jq.yaml')],
            env: { JQ_ROOT: repo, API_KEY: 'sk-do-not-leak' },
          },
        },
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
      // The bridge's API_KEY is not jq's: a filter cannot print it.
      const leak = await rt
        .server('jq')
        .callTool('query', { filter: '[env.API_KEY, $ENV.API_KEY]', file: data });
      expect(textOf(leak)).toBe('[null,null]\n');
      const outside = await rt.server('jq').callTool('keys', { file: '/etc/passwd' });
      expect([outside.isError, textOf(outside)]).toEqual([
        true,
        `Invalid arguments for keys; nothing was run:\n- argument file: "/etc/passwd" resolves to /etc/passwd, outside the allowed roots ${repo}`,
      ]);
      // A filter that doubles a string until memory runs out stops at 512 MiB, at once.
      const hog = await rt.server('jq').callTool('query', {
        filter: 'reduce range(40) as $i ("x"; . + .) | length',
        file: data,
      });
      expect([hog.isError, textOf(hog)]).toEqual([
        true,
        'jq hit its memory limit (512 MiB per process) and was stopped\nstderr:\nerror: cannot allocate memory',
      ]);
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
    // Two CLI processes and a slow tool run to its end and cancelled: ~25 s on an idle 2-core machine.
  }, 90_000);

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
    const ok = await runCli(ws, ['bridge', 'lint', example('git.yaml')], { GIT_REPOS: repo });
    expect([ok.stdout, ok.stderr]).toEqual([`${example('git.yaml')}: ok, 6 tools\n`, '']);
    const jq = await runCli(ws, ['bridge', 'lint', example('jq.yaml')], { JQ_ROOT: repo });
    expect([jq.stdout, jq.stderr]).toEqual([`${example('jq.yaml')}: ok, 2 tools\n`, '']);
    const unset = await runCli(ws, ['bridge', 'lint', example('git.yaml')]);
    expect([unset.code, unset.stderr]).toEqual([
      1,
      'mcpkit: tools.status.args.repo.path.roots uses ${GIT_REPOS}, which is not set; set it or write ${GIT_REPOS:-default}\n',
    ]);
  });

  it('bridge lint warns about the whole environment passed, free path arguments, a missing program', async () => {
    const risky = join(ws.project, 'risky.yaml');
    await writeFile(
      risky,
      [
        'name: risky',
        'program: no-such-program-x',
        'inheritEnv: true',
        'tools:',
        '  cat:',
        '    description: d',
        '    args:',
        '      inputFile: { type: string }',
        '      target: { type: string, description: Path of the output }',
        '      dir: { type: string, path: { roots: [.] } }',
        '      mode: { type: string }',
        '    argv: [$inputFile, $target, $dir, $mode]',
        '',
      ].join('\n'),
    );
    const r = await runCli(ws, ['bridge', 'lint', risky]);
    expect([r.code, r.stdout]).toEqual([0, `${risky}: ok, 1 tool\n`]);
    expect(r.stderr.split('\n')).toEqual([
      `warning: ${risky}: program "no-such-program-x" is not found on PATH; calls to cat will fail until it is installed`,
      `warning: ${risky}: inheritEnv: true passes the bridge's whole environment (tokens, keys) to every tool; list the variables they need instead`,
      `warning: ${risky}: tools.cat.args.inputFile looks like a path but has no path: { roots: [...] }; it can name any file on the machine`,
      `warning: ${risky}: tools.cat.args.target looks like a path but has no path: { roots: [...] }; it can name any file on the machine`,
      '',
    ]);
    await writeFile(
      risky,
      'name: r\nprogram: cat\ntools:\n  t:\n    description: d\n    args:\n      n: { type: integer, path: { within: m } }\n    argv: [$n]\n',
    );
    expect((await runCli(ws, ['bridge', 'lint', risky])).stderr).toBe(
      `mcpkit: invalid contract:\n${risky}:7:33: tools.t.args.n.path: a path argument is a string or an array of strings, not integer\n${risky}:7:43: tools.t.args.n.path.within: "m" must be another argument of this tool with path: { roots }\n`,
    );
  });
});
