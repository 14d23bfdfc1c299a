import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../src/check/index.js';
import { createWorkspace, runCli, type Workspace } from '../helpers/cli.js';
import { everything, fixture, memory, startEverythingHttp } from '../helpers/servers.js';

let ws: Workspace;
beforeAll(async () => {
  ws = await createWorkspace();
});
afterAll(async () => {
  await ws.cleanup();
});

const checkServer = (...flags: string[]) => [process.execPath, fixture('servers/check-server.mjs'), ...flags];

async function check(args: string[]): Promise<{ code: number | null; report: CheckReport; stderr: string }> {
  const r = await runCli(ws, ['check', '--json', ...args]);
  return { code: r.code, report: JSON.parse(r.stdout) as CheckReport, stderr: r.stderr };
}

const statuses = (report: CheckReport) => Object.fromEntries(report.gates.map((g) => [g.gate, g.status]));
const gate = (report: CheckReport, id: string) => report.gates.find((g) => g.gate === id);

/** Every gate PASS on a stdio server with a slow tool, except the HTTP one. */
const ALL_STDIO_PASS = {
  handshake: 'PASS',
  generations: 'PASS',
  tools: 'PASS',
  robustness: 'PASS',
  progress: 'PASS',
  cancellation: 'PASS',
  'stdio-hygiene': 'PASS',
  'http-security': 'SKIP',
  resources: 'PASS',
  prompts: 'PASS',
};

describe.concurrent('mcpkit check on stdio fixtures: each broken server fails exactly its gate', () => {
  it('a correct server passes every gate and exits 0', async () => {
    const { code, report } = await check(['--slow-tool', 'slow', '--', ...checkServer()]);
    expect(statuses(report)).toEqual(ALL_STDIO_PASS);
    expect(code).toBe(0);
    expect(gate(report, 'generations')?.evidence.speaks).toEqual([
      '2025-11-25',
      '2025-06-18',
      '2025-03-26',
      '2024-11-05',
    ]);
    expect(gate(report, 'handshake')?.evidence.serverInfo).toEqual({
      name: 'check-fixture',
      version: '1.0.0',
    });
  });

  it('logs on stdout: stdio-hygiene fails with the offending line', async () => {
    const { code, report } = await check(['--slow-tool', 'slow', '--', ...checkServer('--log-stdout')]);
    expect(statuses(report)).toEqual({ ...ALL_STDIO_PASS, 'stdio-hygiene': 'FAIL' });
    expect(gate(report, 'stdio-hygiene')?.evidence.firstStrayLines).toContain('check-fixture starting up');
    expect(code).toBe(1);
  });

  it('invalid schemas: tools fails naming each tool and problem', async () => {
    const { report } = await check(['--slow-tool', 'slow', '--', ...checkServer('--bad-schema')]);
    expect(statuses(report)).toEqual({ ...ALL_STDIO_PASS, tools: 'FAIL' });
    expect(gate(report, 'tools')?.evidence.problems).toEqual([
      'tool "stringy" inputSchema.type is "string", expected "object"',
      'tool "broken" inputSchema is not valid JSON Schema: /properties must be object',
    ]);
  });

  it('dies on malformed JSON: robustness fails and says the process exited', async () => {
    const { report } = await check(['--slow-tool', 'slow', '--', ...checkServer('--die-on-malformed')]);
    expect(statuses(report)).toEqual({ ...ALL_STDIO_PASS, robustness: 'FAIL' });
    expect(gate(report, 'robustness')?.evidence).toEqual({
      'malformed JSON → -32700': 'FAILED: no answer within 2500 ms',
      'ping after malformed JSON': 'FAILED: the process exited',
    });
  });

  it('ignores cancellation: cancellation fails with the late response as evidence', async () => {
    const { report } = await check(['--slow-tool', 'slow', '--', ...checkServer('--ignore-cancel')]);
    expect(statuses(report)).toEqual({ ...ALL_STDIO_PASS, cancellation: 'FAIL' });
    expect(gate(report, 'cancellation')?.summary).toBe('slow answered after notifications/cancelled');
  });
});

describe.concurrent('mcpkit check on HTTP fixtures', () => {
  async function withHttpFixture<T>(flags: string[], use: (url: string) => Promise<T>): Promise<T> {
    const child = spawn(process.execPath, [fixture('servers/check-http-server.mjs'), ...flags], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const port = await new Promise<string>((resolve) =>
        child.stdout.once('data', (c: Buffer) => resolve(c.toString().trim())),
      );
      return await use(`http://127.0.0.1:${port}/mcp`);
    } finally {
      child.kill('SIGKILL');
    }
  }

  it('a correct HTTP server passes Host/Origin and session checks', async () => {
    await withHttpFixture([], async (url) => {
      const { code, report } = await check(['--url', url]);
      expect(statuses(report)).toEqual({
        handshake: 'PASS',
        generations: 'PASS',
        tools: 'PASS',
        robustness: 'PASS',
        progress: 'SKIP',
        cancellation: 'SKIP',
        'stdio-hygiene': 'SKIP',
        'http-security': 'PASS',
        resources: 'PASS',
        prompts: 'PASS',
      });
      expect(code).toBe(0);
    });
  });

  it('no Host check: http-security fails on exactly the DNS-rebinding items', async () => {
    await withHttpFixture(['--no-host-check'], async (url) => {
      const { code, report } = await check(['--url', url, '--only', 'http-security']);
      expect(statuses(report)).toEqual({ 'http-security': 'FAIL' });
      expect(gate(report, 'http-security')?.summary).toBe('foreign Host refused; foreign Origin refused');
      expect(code).toBe(1);
    });
  });
});

describe.concurrent('mcpkit check on the reference servers', () => {
  it('server-everything (stdio): robustness fails (the SDK v1 drops malformed frames); the rest pass', async () => {
    const { report } = await check([
      '--slow-tool',
      'trigger-long-running-operation',
      '--args',
      '{"duration":2,"steps":4}',
      '--',
      everything.command,
      ...(everything.args ?? []),
    ]);
    expect(statuses(report)).toEqual({ ...ALL_STDIO_PASS, robustness: 'FAIL' });
    const robustness = gate(report, 'robustness')?.evidence ?? {};
    expect(robustness['malformed JSON → -32700']).toBe('FAILED: no answer within 2500 ms');
    expect(robustness['unknown method → -32601']).toBe('ok: error -32601: Method not found');
    expect(robustness['burst of 1000 pings']).toBe('ok: 1000/1000 answered');
    // The whole check waits out no-answer windows and a 2 s slow tool: 26 s alone on Node 22, 31 s on Node 20.
  }, 90_000);

  it('an SDK v2 server speaks 2026-07-28 and every 2025 version; it too drops malformed frames', async () => {
    const { report } = await check([
      '--only',
      'generations,robustness',
      '--',
      process.execPath,
      fixture('servers/modern-server.mjs'),
    ]);
    expect(statuses(report)).toEqual({ generations: 'PASS', robustness: 'FAIL' });
    expect(gate(report, 'generations')?.evidence.speaks).toEqual([
      '2026-07-28',
      '2025-11-25',
      '2025-06-18',
      '2025-03-26',
      '2024-11-05',
    ]);
    expect(gate(report, 'generations')?.evidence.modern).toBe(
      'server/discover and a stateless tools/list answered',
    );
  });

  it('server-memory (stdio): no prompts declared, robustness fails', async () => {
    const { report } = await check(['--', memory.command, ...(memory.args ?? [])]);
    expect(statuses(report)).toEqual({
      ...ALL_STDIO_PASS,
      robustness: 'FAIL',
      progress: 'SKIP',
      cancellation: 'SKIP',
      prompts: 'SKIP',
    });
    // The robustness gate waits out each frame the server leaves unanswered (half the timeout each): slow by design.
  }, 90_000);

  it('server-everything (Streamable HTTP): no DNS-rebinding protection and 400 for unknown sessions', async () => {
    const http = await startEverythingHttp('streamableHttp');
    try {
      const { report } = await check(['--url', http.url, '--only', 'handshake,tools,http-security']);
      expect(statuses(report)).toEqual({ handshake: 'PASS', tools: 'PASS', 'http-security': 'FAIL' });
      expect(gate(report, 'http-security')?.summary).toBe(
        'foreign Host refused; foreign Origin refused; unknown session → 404; DELETE ends the session',
      );
    } finally {
      http.stop();
    }
  });
});

describe('mcpkit check usage', () => {
  it('prints a readable report and exits 1 when a gate fails', async () => {
    const r = await runCli(ws, [
      'check',
      '--only',
      'tools,stdio-hygiene',
      '--',
      ...checkServer('--bad-schema'),
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^mcpkit check: .*check-server\.mjs --bad-schema \(stdio\)\n/);
    expect(r.stdout).toContain('FAIL  tools          2 problems in 4 tools\n');
    expect(r.stdout).toContain('PASS  stdio-hygiene  only JSON-RPC on stdout');
    expect(r.stdout).toMatch(/1 passed, 1 failed, 0 skipped\n$/);
    expect(r.stderr).toBe('mcpkit: 1 gate failed\n');
  });

  it('rejects an unknown gate and two targets with exit 2', async () => {
    const unknownGate = await runCli(ws, ['check', '--only', 'speed', '--', ...checkServer()]);
    expect(unknownGate.code).toBe(2);
    expect(unknownGate.stderr).toContain('--only: unknown gate speed');
    const two = await runCli(ws, ['check', 'name', '--url', 'http://127.0.0.1:1/mcp']);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('check needs exactly one of');
  });
});
