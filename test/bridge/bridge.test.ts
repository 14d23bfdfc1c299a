import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handshake } from '../../src/check/probe.js';
import { StdioProbe } from '../../src/check/stdio-probe.js';
import { Runtime, type ServerHandle } from '../../src/client/index.js';
import { CLI } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { alive, fixture } from '../helpers/servers.js';

const contract = fixture('bridge/contract.yaml');
const bridge = (...extra: string[]) => ({
  command: process.execPath,
  args: [CLI, 'bridge', contract, ...extra],
});

let runtime: Runtime;
let server: ServerHandle;
beforeAll(async () => {
  runtime = await Runtime.create({ servers: [{ name: 'b', entry: bridge() }] });
  server = runtime.server('b');
});
afterAll(async () => {
  await runtime.close();
});

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;
/** A result without the `_meta` the 2026 era adds (server info). */
const bare = ({ _meta: _m, ...rest }: Record<string, unknown>) => rest;
const argvOf = async (args: Record<string, unknown>) => {
  const result = await server.callTool('argv', args);
  expect(result.isError, textOf(result)).toBeFalsy();
  return JSON.parse(textOf(result)) as string[];
};

describe('bridge: tools/list is the contract', () => {
  it('lists every tool with its exact schema, description and annotations, plus the job tools', async () => {
    const tools = await server.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'argv',
      'exit',
      'rigor',
      'lines',
      'steps',
      'slow',
      'big',
      'badutf8',
      'json',
      'server',
      'counter',
      'fails',
      'jobs_list',
      'job_output',
      'job_stop',
    ]);
    expect(tools.find((t) => t.name === 'exit')).toEqual({
      name: 'exit',
      description: 'Exits with the given code.',
      inputSchema: {
        type: 'object',
        properties: { code: { type: 'integer', description: 'Exit code' } },
        required: ['code'],
        additionalProperties: false,
      },
    });
    expect(tools.find((t) => t.name === 'argv')?.annotations).toEqual({ readOnlyHint: true });
    expect(tools.find((t) => t.name === 'json')?.outputSchema).toEqual({
      type: 'object',
      properties: { ok: { type: 'boolean' }, count: { type: 'integer' } },
    });
    expect(server.serverInfo).toEqual({ name: 'fixture', version: '2.1.0' });
    expect(server.instructions).toBe('Test tools.');
  });
});

describe('bridge: argv mapping', () => {
  it('maps positionals, options, repeated options, = options, switches and the -- separator', async () => {
    expect(await argvOf({})).toEqual(['run', 'world', '--']);
    expect(
      await argvOf({
        who: 'ada',
        count: 3,
        tags: ['a', 'b'],
        format: 'json',
        verbose: true,
        data: 'd.csv',
        files: ['x', 'y'],
      }),
    ).toEqual([
      'run',
      'ada',
      '--count',
      '3',
      '--tag',
      'a',
      '--tag',
      'b',
      '--format=json',
      '--verbose',
      '--data=d.csv',
      '--',
      'x',
      'y',
    ]);
    expect(await argvOf({ verbose: false, count: -5 })).toEqual(['run', 'world', '--count', '-5', '--']);
  });

  it('passes shell syntax through as plain words: no shell ever sees it', async () => {
    const nasty = ['; rm -rf /', '$(touch /tmp/mcpkit-pwned)', '`id`', 'a\nb', "' OR 1=1 --", '>/etc/passwd'];
    for (const who of nasty) expect(await argvOf({ who })).toEqual(['run', who, '--']);
    expect(await argvOf({ files: ['--output=/etc/passwd', '-rf'] })).toEqual([
      'run',
      'world',
      '--',
      '--output=/etc/passwd',
      '-rf',
    ]);
    expect(await argvOf({ data: '--output=/etc/passwd' })).toEqual([
      'run',
      'world',
      '--data=--output=/etc/passwd',
      '--',
    ]);
  });

  it('refuses values that would become options, and NUL bytes, before running anything', async () => {
    const positional = await server.callTool('argv', { who: '--output=/etc/passwd' });
    expect(bare(positional)).toEqual({
      content: [
        {
          type: 'text',
          text: 'Invalid arguments for argv; nothing was run:\n- argument who: "--output=/etc/passwd" starts with "-" and would be read as an option',
        },
      ],
      isError: true,
    });
    const option = await server.callTool('argv', { tags: ['-x'] });
    expect(textOf(option)).toContain('argument tags: "-x" starts with "-"');
    const nul = await server.callTool('argv', { who: 'a\u0000b' });
    expect(textOf(nul)).toContain('argument who: contains a NUL byte');
  });

  it('validates arguments against the schema and lists every problem as an isError result', async () => {
    const result = await server.callTool('argv', { count: 'three', format: 'xml', extra: 1 });
    expect(result.isError).toBe(true);
    expect(textOf(result).split('\n')).toEqual([
      'Invalid arguments for argv; nothing was run:',
      '- arguments: must NOT have additional properties "extra"',
      '- argument count: must be integer',
      '- argument format: must be equal to one of the allowed values',
    ]);
  });
});

describe('bridge: exit policy, output', () => {
  it('non-zero exit is isError with stderr attached; errorCodes makes only those codes errors', async () => {
    expect(bare(await server.callTool('exit', { code: 0 }))).toEqual({
      content: [{ type: 'text', text: 'out\n' }],
    });
    const failed = await server.callTool('exit', { code: 3 });
    expect(bare(failed)).toEqual({
      content: [{ type: 'text', text: 'node exited with code 3\nstderr:\nerr 3\nstdout:\nout\n' }],
      isError: true,
    });
    expect((await server.callTool('rigor', { code: 1 })).isError).toBeUndefined();
    expect((await server.callTool('rigor', { code: 64 })).isError).toBe(true);
  });

  it('caps stdout with a marker, replaces invalid UTF-8, parses json output', async () => {
    const big = await server.callTool('big', { n: 5000 });
    expect(textOf(big)).toBe(`${'x'.repeat(1024)}\n[mcpkit: output truncated; 3976 more bytes dropped]`);
    expect(textOf(await server.callTool('badutf8'))).toBe('\uFFFD\uFFFDA\n');
    expect(bare(await server.callTool('json'))).toEqual({
      content: [{ type: 'text', text: '{"ok":true,"count":3}' }],
      structuredContent: { ok: true, count: 3 },
    });
  });
});

describe('bridge: progress, timeout, cancellation', () => {
  it('sends one progress notification per stdout line, or per pattern match, before the response', async () => {
    const lines: string[] = [];
    await server.callTool('lines', { n: 5 }, { onProgress: (p) => lines.push(`${p.progress}:${p.message}`) });
    expect(lines).toEqual(['1:step 1/5', '2:step 2/5', '3:step 3/5', '4:step 4/5', '5:step 5/5']);
    const steps: string[] = [];
    await server.callTool('steps', { n: 3 }, { onProgress: (p) => steps.push(`${p.progress}/${p.total}`) });
    expect(steps).toEqual(['1/3', '2/3', '3/3']);
  });

  it('sends no progress without a progress token', async () => {
    const probe = await StdioProbe.start({ ...bridge(), parentEnv: process.env });
    try {
      await handshake(probe, '2025-11-25', 5000);
      const answer = await probe.request('tools/call', { name: 'lines', arguments: { n: 4 } }, 5000);
      expect(answer?.result).toBeDefined();
      expect(probe.notifications.filter((n) => n.method === 'notifications/progress')).toEqual([]);
    } finally {
      await probe.close();
    }
  });

  it('times out: SIGTERM to the group, isError with the partial output, the process is gone', async () => {
    const started = Date.now();
    const result = await server.callTool('slow');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^node timed out after 0\.7 s; its process group was stopped\. Partial output:\npid \d+\nready\n/,
    );
    expect(Date.now() - started).toBeLessThan(3000);
    const pid = Number(/pid (\d+)/.exec(textOf(result))?.[1]);
    expect(alive(pid)).toBe(false);
  });

  it('cancels: the process group is gone within the grace period and no response is sent', async () => {
    const controller = new AbortController();
    let pid = 0;
    const call = server.callTool(
      'slow',
      {},
      {
        signal: controller.signal,
        onProgress: (p) => {
          const match = /pid (\d+)/.exec(p.message ?? '');
          if (match) pid = Number(match[1]);
        },
      },
    );
    await eventually('the program to report its pid', () => (pid === 0 ? undefined : pid));
    expect(alive(pid)).toBe(true);
    controller.abort();
    await expect(call).rejects.toThrow();
    await eventually('the cancelled program to end', () => (alive(pid) ? undefined : true));
    expect(await server.ping()).toBeGreaterThan(0);
  });
});

describe('bridge: background jobs', () => {
  it('starts a job, lists it, shows its output and stops it', async () => {
    const started = await server.callTool('server', { port: 9999 });
    const job = started.structuredContent as { id: string; pid: number; url: string; status: string };
    expect(job).toMatchObject({
      id: expect.stringMatching(/^job-\d+$/),
      url: 'http://127.0.0.1:9999/',
      status: 'running',
      tool: 'server',
    });
    expect(alive(job.pid)).toBe(true);
    const list = await server.callTool('jobs_list');
    expect((list.structuredContent as { jobs: { id: string }[] }).jobs.map((j) => j.id)).toContain(job.id);
    // The job prints `ready` when it is up; its output is read as it comes.
    await eventually(async () => {
      const output = await server.callTool('job_output', { id: job.id });
      return (output.structuredContent as { stdout: string }).stdout.includes('ready') ? true : undefined;
    });
    const stopped = await server.callTool('job_stop', { id: job.id });
    expect((stopped.structuredContent as { job: { status: string } }).job.status).toBe('exited');
    expect(alive(job.pid)).toBe(false);
    expect((await server.callTool('job_stop', { id: 'job-999' })).isError).toBe(true);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('every job dies when the bridge gets %s', async (signal) => {
    const probe = await StdioProbe.start({ ...bridge(), parentEnv: process.env });
    try {
      await handshake(probe, '2025-11-25', 5000);
      const answer = await probe.request('tools/call', { name: 'server', arguments: {} }, 5000);
      const pid = (answer?.result?.structuredContent as { pid: number } | undefined)?.pid ?? 0;
      expect(alive(pid)).toBe(true);
      probe.signal(signal);
      await eventually('the bridged program to end', () => (alive(pid) ? undefined : true));
      await eventually('the probe process to end', () => (probe.alive() ? undefined : true));
    } finally {
      await probe.close();
    }
  });

  it('every job dies when the bridge exits', async () => {
    const own = await Runtime.create({ servers: [{ name: 'b', entry: bridge() }] });
    const job = (await own.server('b').callTool('server')).structuredContent as { pid: number };
    expect(alive(job.pid)).toBe(true);
    await own.close();
    await eventually('the job to end', () => (alive(job.pid) ? undefined : true));
  });
});

describe('bridge: in-process tools, read-only, --set', () => {
  it('keeps module state warm across calls and reports its progress', async () => {
    const first = await server.callTool('counter', { label: 'a' });
    const progress: string[] = [];
    const second = await server.callTool(
      'counter',
      {},
      { onProgress: (p) => progress.push(p.message ?? '') },
    );
    expect((second.structuredContent as { calls: number }).calls).toBe(
      (first.structuredContent as { calls: number }).calls + 1,
    );
    expect(first.structuredContent).toMatchObject({ label: 'a' });
    expect(progress).toHaveLength(1);
    expect(bare(await server.callTool('fails'))).toEqual({
      content: [{ type: 'text', text: 'module tool failed on purpose' }],
      isError: true,
    });
  });

  it('--read-only serves only readOnlyHint tools; --set overrides a session default', async () => {
    const own = await Runtime.create({
      servers: [{ name: 'b', entry: bridge('--read-only', '--set', 'who=set-by-flag') }],
    });
    try {
      expect((await own.server('b').listTools()).map((t) => t.name)).toEqual(['argv', 'lines']);
      const result = await own.server('b').callTool('argv', {});
      expect(JSON.parse(textOf(result))).toEqual(['run', 'set-by-flag', '--']);
    } finally {
      await own.close();
    }
  });
});

describe('bridge lint', () => {
  it('the fixture contract is what --print-tools prints', async () => {
    const { run } = await import('../../src/cli/run.js');
    let out = '';
    const code = await run(['bridge', 'lint', contract, '--print-tools'], {
      out: (t) => {
        out += t;
      },
      err: () => undefined,
      cwd: process.cwd(),
      env: process.env,
      stdin: process.stdin,
      stderrIsTTY: false,
    });
    expect(code).toBe(0);
    expect(JSON.parse(out).tools).toEqual(await server.listTools());
    expect((await readFile(contract, 'utf8')).length).toBeGreaterThan(0);
  });
});

describe('bridge contract JSON Schema', () => {
  it('schemas/bridge-contract.schema.json is generated from the contract schemas (npm run schema)', async () => {
    const { contractJsonSchema } = await import('../../src/bridge/json-schema.js');
    const committed = JSON.parse(
      await readFile(new URL('../../schemas/bridge-contract.schema.json', import.meta.url), 'utf8'),
    );
    expect(committed).toEqual(JSON.parse(JSON.stringify(contractJsonSchema())));
    // The shipped contracts validate against it, as an editor would check them.
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const { parse } = await import('yaml');
    const validate = new Ajv2020({ strict: false }).compile(committed);
    for (const file of [
      '../../examples/git.yaml',
      '../../examples/jq.yaml',
      '../fixtures/bridge/contract.yaml',
    ]) {
      const value = parse(await readFile(new URL(file, import.meta.url), 'utf8'));
      expect(validate(value), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect(validate({ name: 'x', tools: { t: { description: 'd', argv: [{ switch: '--v' }] } } })).toBe(
      false,
    );
  });
});

describe('bridge environment', () => {
  it('expands ${VAR} in env at start, and an unset one without default is a start-up error', async () => {
    const { createBridge, parseContract } = await import('../../src/bridge/index.js');
    const text =
      'name: e\nprogram: node\nenv:\n  A: "${HOME_DIR:-/h}"\n  B: "${NOT_SET_ANYWHERE}"\ntools:\n  t:\n    description: d\n';
    const { contract } = parseContract(text);
    expect(contract).toBeDefined();
    const loaded = { file: '/x/c.yaml', dir: '/x', contract: contract as NonNullable<typeof contract> };
    await expect(createBridge(loaded, { env: {} })).rejects.toThrow(
      'env.B uses ${NOT_SET_ANYWHERE}, which is not set; set it or write ${NOT_SET_ANYWHERE:-default}',
    );
    await expect(createBridge(loaded, { env: { NOT_SET_ANYWHERE: 'x' } })).resolves.toBeDefined();
  });
});
