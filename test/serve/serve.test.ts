import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../src/check/index.js';
import { Runtime } from '../../src/client/index.js';
import { checkFrame } from '../../src/serve/frames.js';
import { isAllowedRequest } from '../../src/serve/index.js';
import { createWorkspace, runCli, type Workspace } from '../helpers/cli.js';
import { fixture } from '../helpers/servers.js';

const served = [process.execPath, fixture('servers/served.mjs')];
const ALL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

let ws: Workspace;
let http: { url: string; stop: () => void };
beforeAll(async () => {
  ws = await createWorkspace();
  const child = spawn(process.execPath, [fixture('servers/served.mjs'), 'http'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const url = await new Promise<string>((resolve) =>
    child.stdout.once('data', (c: Buffer) => resolve(c.toString().trim())),
  );
  http = { url, stop: () => child.kill('SIGKILL') };
});
afterAll(async () => {
  http.stop();
  await ws.cleanup();
});

const statuses = (report: CheckReport) => Object.fromEntries(report.gates.map((g) => [g.gate, g.status]));

describe.concurrent('serve/: an SDK v2 server behind mcpkit passes the gates the bare SDK fails', () => {
  it('stdio: both generations, malformed frames answered, clean stdout', async () => {
    const r = await runCli(ws, [
      'check',
      '--json',
      '--only',
      'generations,tools,robustness,stdio-hygiene',
      '--',
      ...served,
      'stdio',
    ]);
    const report = JSON.parse(r.stdout) as CheckReport;
    expect(statuses(report)).toEqual({
      generations: 'PASS',
      tools: 'PASS',
      robustness: 'PASS',
      'stdio-hygiene': 'PASS',
    });
    expect(report.gates[0]?.evidence.speaks).toEqual(ALL_VERSIONS);
    expect(r.code).toBe(0);
  });

  it('HTTP: both generations on one endpoint, 2025 sessions, Host/Origin refused', async () => {
    expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const r = await runCli(ws, [
      'check',
      '--json',
      '--only',
      'generations,robustness,http-security',
      '--url',
      http.url,
    ]);
    const report = JSON.parse(r.stdout) as CheckReport;
    expect(statuses(report)).toEqual({ generations: 'PASS', robustness: 'PASS', 'http-security': 'PASS' });
    expect(report.gates[0]?.evidence.speaks).toEqual(ALL_VERSIONS);
  });

  it('the runtime reaches it on 2026-07-28 over stdio and HTTP', async () => {
    const rt = await Runtime.create({
      servers: [
        {
          name: 'stdio',
          entry: { command: process.execPath, args: [fixture('servers/served.mjs'), 'stdio'] },
        },
        { name: 'http', entry: { url: http.url } },
      ],
    });
    try {
      for (const id of ['stdio', 'http']) {
        expect(rt.server(id).protocolVersion).toBe('2026-07-28');
        const echo = await rt.server(id).callTool('echo', { text: id });
        expect(echo.content).toEqual([{ type: 'text', text: id }]);
      }
    } finally {
      await rt.close();
    }
  });
});

describe('serve/ building blocks', () => {
  it('answers malformed frames as JSON-RPC 2.0 asks', () => {
    expect(checkFrame('{"jsonrpc":"2.0","id":1,"method":"ping"')).toEqual({
      ok: false,
      answer: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: not valid JSON' } },
    });
    expect(checkFrame('{"jsonrpc":"1.0","id":7,"method":"ping"}')).toMatchObject({
      ok: false,
      answer: { id: 7, error: { code: -32600 } },
    });
    expect(checkFrame('{"jsonrpc":"2.0","id":8}')).toMatchObject({
      ok: false,
      answer: { id: 8, error: { code: -32600 } },
    });
    expect(checkFrame('"text"')).toMatchObject({ ok: false, answer: { id: null, error: { code: -32600 } } });
    expect(checkFrame('{"jsonrpc":"2.0","id":9,"method":"ping"}').ok).toBe(true);
  });

  it('accepts only local Host and Origin headers (plus hosts allowed by name)', () => {
    expect(isAllowedRequest({ host: '127.0.0.1:3000' })).toBe(true);
    expect(isAllowedRequest({ host: 'localhost:3000', origin: 'http://localhost:5173' })).toBe(true);
    expect(isAllowedRequest({ host: '[::1]:3000' })).toBe(true);
    expect(isAllowedRequest({ host: 'evil.example' })).toBe(false);
    expect(isAllowedRequest({ host: '127.0.0.1:3000', origin: 'http://evil.example' })).toBe(false);
    expect(isAllowedRequest({ host: '127.0.0.1:3000', origin: 'null' })).toBe(false);
    expect(isAllowedRequest({})).toBe(false);
    expect(isAllowedRequest({ host: 'box.lan:80' }, ['box.lan'])).toBe(true);
  });
});
