import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { displayWords } from '../../src/cli/format.js';
import { createWorkspace, runCli, type Workspace } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import {
  alive,
  everything,
  everythingWords,
  fixture,
  rawServer,
  startEverythingHttp,
} from '../helpers/servers.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

const raw = rawServer();
const rawWords = [raw.command, ...(raw.args ?? [])];
const addJson = (name: string, entry: object) => runCli(ws, ['add-json', name, JSON.stringify(entry)]);

describe('mcpkit tools', () => {
  it('lists every configured server, reports a failing one and exits 1', async () => {
    await addJson('raw', raw);
    await addJson('broken', { command: 'mcpkit-no-such-command-xyz' });
    const r = await runCli(ws, ['tools']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('raw (5 tools)\n  crash     Exits the process while the call is in flight.\n');
    expect(r.stdout).toContain(
      'broken: failed (spawn): cannot start "mcpkit-no-such-command-xyz": not found (is it installed and on PATH?)\n',
    );
    expect(r.stderr).toBe('mcpkit: 1 of 2 servers failed: broken\n');
  });

  it('prints JSON for one server, and works on an ad-hoc server after --', async () => {
    await addJson('raw', raw);
    const named = await runCli(ws, ['tools', 'raw', '--json']);
    expect(named.code).toBe(0);
    const [report] = JSON.parse(named.stdout);
    expect(report.server).toBe('raw');
    expect(report.tools.map((t: { name: string }) => t.name)).toEqual([
      'crash',
      'hang',
      'progress',
      'env',
      'add-tool',
    ]);
    const adhoc = await runCli(ws, ['tools', '--json', '--', ...rawWords]);
    expect(JSON.parse(adhoc.stdout)[0].tools).toHaveLength(5);
  });

  it('talks to a URL (Streamable HTTP)', async () => {
    const http = await startEverythingHttp('streamableHttp');
    try {
      const r = await runCli(ws, ['call', http.url, 'echo', '{"message":"over http"}']);
      expect(r).toMatchObject({ code: 0, stdout: 'Echo: over http\n' });
    } finally {
      http.stop();
    }
  });
});

describe('mcpkit call', () => {
  it('takes arguments as JSON, @file or - (stdin)', async () => {
    await writeFile(join(ws.project, 'args.json'), '{"message":"from file"}');
    const inline = await runCli(ws, ['call', 'echo', '{"message":"inline"}', '--', ...everythingWords]);
    expect(inline).toMatchObject({ code: 0, stdout: 'Echo: inline\n' });
    const file = await runCli(ws, ['call', 'echo', '@args.json', '--', ...everythingWords]);
    expect(file.stdout).toBe('Echo: from file\n');
    const stdin = await runCli(
      ws,
      ['call', 'echo', '-', '--', ...everythingWords],
      {},
      { stdin: '{"message":"piped"}' },
    );
    expect(stdin.stdout).toBe('Echo: piped\n');
  });

  it('prints structured content as JSON and --json prints the whole result', async () => {
    const structured = await runCli(ws, [
      'call',
      'get-structured-content',
      '{"location":"New York"}',
      '--',
      ...everythingWords,
    ]);
    expect(JSON.parse(structured.stdout)).toMatchObject({ temperature: expect.any(Number) });
    const whole = await runCli(ws, ['call', 'get-sum', '{"a":2,"b":3}', '--json', '--', ...everythingWords]);
    expect(JSON.parse(whole.stdout)).toEqual({
      content: [{ type: 'text', text: 'The sum of 2 and 3 is 5.' }],
    });
  });

  it('exits 1 when the tool result has isError', async () => {
    const r = await runCli(ws, ['call', 'no-such-tool', '--', ...rawWords]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('unknown tool no-such-tool\n');
    expect(r.stderr).toBe('mcpkit: tool "no-such-tool" returned an error (isError)\n');
  });

  it('shows progress on stderr, one line per update when stderr is not a terminal', async () => {
    const r = await runCli(ws, ['call', 'progress', '{"count":3}', '--', ...rawWords]);
    expect(r.stdout).toBe('sent 3\n');
    expect(r.stderr).toBe('progress: 1/3\nprogress: 2/3\nprogress: 3/3\n');
  });

  it('reports bad JSON arguments with line and column, and usage errors with exit 2', async () => {
    const bad = await runCli(ws, ['call', 'echo', '{"message":', '--', ...rawWords]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('mcpkit: argument <json>:1:12: invalid JSON (value expected)\n');
    expect((await runCli(ws, ['call'])).code).toBe(2);
    expect((await runCli(ws, ['call', 'raw'])).stderr).toContain('call: missing <tool>');
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    'on %s cancels the call, stops the server and its whole group, exits %i',
    async (signal, code) => {
      const pidFile = join(ws.root, `pids-${signal}`);
      const wrapper = [process.execPath, fixture('servers/wrapper.mjs'), '--sleeper', '--pid-file', pidFile];
      let child: import('node:child_process').ChildProcess | undefined;
      let seen = '';
      const run = runCli(
        ws,
        ['call', 'hang', '--', ...wrapper],
        { MCPKIT_SHOW_STDERR: '1' },
        {
          onSpawn: (c) => {
            child = c;
            c.stderr?.on('data', (chunk: Buffer) => {
              seen += chunk.toString();
            });
          },
        },
      );
      const pids = await eventually(async () => {
        const found = (await readFile(pidFile, 'utf8').catch(() => ''))
          .split('\n')
          .filter(Boolean)
          .map(Number);
        return found.length >= 2 ? found : undefined;
      });
      expect(pids.every(alive)).toBe(true);
      // The call has reached the server (it says so on stderr, shown with MCPKIT_SHOW_STDERR=1).
      await eventually(() => (/\] hanging \d+/.test(seen) ? true : undefined));
      child?.kill(signal);
      const r = await run;
      expect(r.code).toBe(code);
      // The ad-hoc server is named by its command line.
      expect(r.stderr).toContain(`[${displayWords(wrapper)}] cancelled `);
      expect(r.stderr).toContain(`mcpkit: cancelled (${signal})`);
      expect(pids.filter(alive)).toEqual([]);
    },
    20_000,
  );
});

describe('mcpkit resources, read, prompts, prompt, ping', () => {
  it('lists and reads resources, lists and renders prompts, pings', async () => {
    await addJson('ev', everything);
    const resources = await runCli(ws, ['resources', 'ev']);
    expect(resources.stdout).toMatch(/^ev \(\d+ resources, 2 templates\)\n/);
    expect(resources.stdout).toContain('demo://resource/dynamic/text/{resourceId}');
    const read = await runCli(ws, ['read', 'ev', 'demo://resource/dynamic/text/1']);
    expect(read.code).toBe(0);
    expect(read.stdout.length).toBeGreaterThan(0);
    const prompts = await runCli(ws, ['prompts', 'ev']);
    expect(prompts.stdout).toContain('args-prompt');
    expect(prompts.stdout).toContain('city [state]');
    const prompt = await runCli(ws, ['prompt', 'ev', 'args-prompt', 'city=Paris', 'state=TX']);
    expect(prompt.stdout).toContain("user: What's weather in Paris, TX?");
    const ping = await runCli(ws, ['ping']);
    expect(ping.code).toBe(0);
    expect(ping.stdout).toMatch(/^ev {2}ok {2}\d+\.\d ms {2}2025-11-25\n$/);
  });

  it('answers an elicitation without a terminal by accepting the schema defaults', async () => {
    const r = await runCli(ws, ['call', 'trigger-elicitation-request', '--', ...everythingWords]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/accept/i);
  });
});
