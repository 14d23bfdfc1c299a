import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect } from 'vitest';
import { displayWords } from '../../src/cli/format.js';
import { runInProcess } from '../config/run-in-process.js';
import type { Workspace } from '../helpers/cli.js';
import { test as it } from '../helpers/fixtures.js';
import { everythingWords, filesystem, fixture } from '../helpers/servers.js';

// Every case: exactly one line on stderr (no stack), and the exit code a script can rely on.
let ws: Workspace;
it.beforeEach(({ workspace }) => {
  ws = workspace;
});

const everythingLabel = displayWords(everythingWords);

/** A port something else already listens on. */
async function busyPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, server };
}

describe('a busy port is one line, before anything starts', () => {
  let busy: { port: number; server: Server };
  beforeEach(async () => {
    busy = await busyPort();
  });
  afterEach(async () => {
    await new Promise((resolve) => busy.server.close(resolve));
  });
  const message = () =>
    `mcpkit: cannot listen on 127.0.0.1:${busy.port}: the port is in use; give another --port, or --port 0 for any free port\n`;

  it('bridge', async () => {
    const r = await runInProcess(ws, [
      'bridge',
      fixture('bridge/contract.yaml'),
      '-t',
      'http',
      '--port',
      String(busy.port),
    ]);
    expect(r).toEqual({ code: 1, stdout: '', stderr: message() });
  });

  it('gateway: no upstream is started', async () => {
    // An upstream that leaves a mark when started: the old gateway started it, then failed to bind.
    const marker = join(ws.root, 'started');
    await writeFile(
      join(ws.project, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          marks: {
            command: process.execPath,
            args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`],
          },
        },
      }),
    );
    const r = await runInProcess(ws, [
      'gateway',
      '-t',
      'http',
      '--port',
      String(busy.port),
      '--no-watch',
      '--ready-wait',
      '5000',
    ]);
    expect(r).toEqual({ code: 1, stdout: '', stderr: message() });
    expect(existsSync(marker)).toBe(false);
  });

  it('search-server: nothing is indexed', async () => {
    const r = await runInProcess(ws, [
      'search-server',
      ws.project,
      '-t',
      'http',
      '--port',
      String(busy.port),
    ]);
    expect(r).toEqual({ code: 1, stdout: '', stderr: message() });
  });
});

describe("an address that is not this machine's is one line (exit 1)", () => {
  it('--host 192.0.2.1 (a documentation address)', async () => {
    await writeFile(join(ws.project, 'tokens.txt'), `ci:${'c'.repeat(32)}\n`, { mode: 0o600 });
    const r = await runInProcess(ws, [
      'bridge',
      fixture('bridge/contract.yaml'),
      '-t',
      'http',
      '--host',
      '192.0.2.1',
      // Beyond loopback, auth is required before anything is bound.
      '--tokens',
      join(ws.project, 'tokens.txt'),
    ]);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: "mcpkit: cannot listen on 192.0.2.1: the address is not one of this machine's\n",
    });
  });
});

describe('--port and --host are checked as the command line is read (exit 2)', () => {
  const commands = [['bridge', 'contract.yaml'], ['gateway'], ['search-server']];
  it.each(commands)('%s', async (...command) => {
    for (const [flags, text] of [
      [
        ['--port', '70000'],
        'mcpkit: --port must be a port number from 0 to 65535 (0: any free port), got "70000"\n',
      ],
      [
        ['--port', 'abc'],
        'mcpkit: --port must be a port number from 0 to 65535 (0: any free port), got "abc"\n',
      ],
      [['--host', '999.1.1.1'], 'mcpkit: --host must be an IP address or a host name, got "999.1.1.1"\n'],
    ] as const) {
      const r = await runInProcess(ws, [...command, '-t', 'http', ...flags]);
      expect(r).toEqual({ code: 2, stdout: '', stderr: text });
    }
  });

  it('--port 0 (any free port) is accepted', async () => {
    const { portNumber } = await import('../../src/cli/options.js');
    expect(portNumber('0')).toBe(0);
    expect(portNumber('65535')).toBe(65535);
  });
});

describe('requests that fail say what the server said, in one line', () => {
  it('call --timeout expiring names the server, the tool and the timeout (exit 1)', async () => {
    const r = await runInProcess(ws, [
      'call',
      '--timeout',
      '0.5',
      'trigger-long-running-operation',
      '{"duration":30,"steps":30}',
      '--',
      ...everythingWords,
    ]);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `mcpkit: server "${everythingLabel}" did not answer tool "trigger-long-running-operation" within 0.5 s (--timeout)\n`,
    });
  });

  it('read of a missing resource carries the server message (exit 1)', async () => {
    const r = await runInProcess(ws, ['read', 'demo://nope', '--', ...everythingWords]);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `mcpkit: server "${everythingLabel}" refused resource demo://nope: Resource demo://nope not found (-32602)\n`,
    });
  });

  it('a prompt with a missing required argument is named before anything is sent (exit 2)', async () => {
    const r = await runInProcess(ws, ['prompt', 'args-prompt', 'state=CA', '--', ...everythingWords]);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: 'mcpkit: prompt "args-prompt" needs city=<value> (missing required argument: city)\n',
    });
  });

  it('an unknown prompt lists the prompts there are (exit 2)', async () => {
    const r = await runInProcess(ws, ['prompt', 'nope', '--', ...everythingWords]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `mcpkit: prompt: server "${everythingLabel}" has no prompt "nope" (prompts: simple-prompt, args-prompt, completable-prompt, resource-prompt)\n`,
    );
  });
});

describe('a server without resources or prompts says it offers none', () => {
  const fs = () => filesystem(ws.project);
  const fsWords = () => [fs().command, ...(fs().args ?? [])];
  const label = () => displayWords(fsWords());

  it('read and prompt fail in one line (exit 1)', async () => {
    const read = await runInProcess(ws, ['read', 'file:///x', '--', ...fsWords()]);
    expect(read).toEqual({
      code: 1,
      stdout: '',
      stderr: `mcpkit: server "${label()}" offers no resources (it does not declare the resources capability)\n`,
    });
    const prompt = await runInProcess(ws, ['prompt', 'x', '--', ...fsWords()]);
    expect(prompt).toEqual({
      code: 1,
      stdout: '',
      stderr: `mcpkit: server "${label()}" offers no prompts (it does not declare the prompts capability)\n`,
    });
  });

  it('resources and prompts list nothing and say why (exit 0)', async () => {
    const resources = await runInProcess(ws, ['resources', '--', ...fsWords()]);
    expect(resources).toEqual({
      code: 0,
      stdout: `${label()}: offers no resources (no resources capability)\n`,
      stderr: '',
    });
    const prompts = await runInProcess(ws, ['prompts', '--', ...fsWords()]);
    expect(prompts).toEqual({
      code: 0,
      stdout: `${label()}: offers no prompts (no prompts capability)\n`,
      stderr: '',
    });
  });
});

describe('the ad-hoc server is named by its command line', () => {
  it('in listings', async () => {
    const r = await runInProcess(ws, ['prompts', '--', ...everythingWords]);
    expect(r.stdout.split('\n')[0]).toBe(`${everythingLabel} (4 prompts)`);
  });

  it('with -- there is no <server>: a stray word is explained (exit 2)', async () => {
    const r = await runInProcess(ws, ['call', 'ev', 'echo', '--', ...everythingWords]);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'mcpkit: call: with -- <command…> there is no <server>: call <tool> [json] -- <command…> (got ev echo)\n',
    });
  });
});

describe('MCPKIT_DEBUG=1 adds the stack after the one line', () => {
  it('for a library error, with its cause', async () => {
    const busy = await busyPort();
    try {
      const args = ['bridge', fixture('bridge/contract.yaml'), '-t', 'http', '--port', String(busy.port)];
      const r = await runInProcess(ws, args, { MCPKIT_DEBUG: '1' });
      expect(r.code).toBe(1);
      const [first, ...rest] = r.stderr.split('\n');
      expect(first).toMatch(/^mcpkit: cannot listen on 127\.0\.0\.1:\d+: the port is in use/);
      expect(rest.join('\n')).toMatch(
        /McpkitError: cannot listen[\s\S]*\n\s+at [\s\S]*caused by: [\s\S]*EADDRINUSE/,
      );
    } finally {
      await new Promise((resolve) => busy.server.close(resolve));
    }
  });
});
