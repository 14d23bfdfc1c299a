import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../config/run-in-process.js';
import { createWorkspace, runCli, type Workspace } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { fixture } from '../helpers/servers.js';

let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

const contract = fixture('bridge/contract.yaml');

describe('the serving flags of bridge, gateway and search-server', () => {
  it.each([
    [['gateway', '--port', '8765'], 'mcpkit: --port: only with -t http (gateway serves stdio otherwise)\n'],
    [
      ['search-server', '--session-idle', '60', '--max-sessions', '5'],
      'mcpkit: --session-idle, --max-sessions: only with -t http (search-server serves stdio otherwise)\n',
    ],
    [
      ['bridge', contract, '-t', 'sse'],
      'mcpkit: bridge serves stdio or http (-t http); legacy SSE is for clients only\n',
    ],
    [
      ['gateway', '--tokens', 'tokens.txt', '--allow-host', 'mcp.example'],
      'mcpkit: --tokens, --allow-host: only with -t http (gateway serves stdio otherwise)\n',
    ],
    [
      ['gateway', '--dashboard-payloads'],
      'mcpkit: --dashboard-payloads, --no-dashboard: only with -t http (the dashboard is served over HTTP)\n',
    ],
    [
      ['gateway', '-t', 'http', '--host', '0.0.0.0'],
      'mcpkit: --host 0.0.0.0 serves beyond this machine, which needs auth: add --tokens FILE (one "name:token" per line), set MCPKIT_AUTH_TOKEN or give --oauth-issuer URL, or bind 127.0.0.1\n',
    ],
    [
      ['search-server', '-t', 'http', '--auth', 'token'],
      'mcpkit: --auth token needs the tokens: --tokens FILE (one "name:token" per line) or MCPKIT_AUTH_TOKEN\n',
    ],
    [
      ['bridge', contract, '-t', 'http', '--auth', 'basic'],
      'mcpkit: --auth must be "token", "oauth" or "none", got "basic"\n',
    ],
    [
      ['gateway', '-t', 'http', '--auth', 'oauth'],
      'mcpkit: --auth oauth needs the authorization server: --oauth-issuer URL (its issuer identifier)\n',
    ],
    [
      ['gateway', '-t', 'http', '--oauth-issuer', 'auth.example'],
      'mcpkit: --oauth-issuer must be an http:// or https:// URL, got "auth.example"\n',
    ],
    [
      ['gateway', '-t', 'http', '--tokens', 'tokens.txt', '--oauth-issuer', 'https://auth.example'],
      'mcpkit: --tokens and OAuth contradict each other: choose one\n',
    ],
    [
      ['gateway', '-t', 'http', '--oauth-scope', 'mcp', '--oauth-audience', 'api'],
      'mcpkit: --oauth-audience, --oauth-scope: only with --auth oauth\n',
    ],
    [
      ['gateway', '--oauth-issuer', 'https://auth.example'],
      'mcpkit: --oauth-issuer: only with -t http (gateway serves stdio otherwise)\n',
    ],
  ])('refuses %j with one line and exit 2 (HTTP flags were ignored in silence)', async (args, line) => {
    const r = await runInProcess(ws, args);
    expect(r).toEqual({ code: 2, stdout: '', stderr: line });
  });

  it('--host 0.0.0.0 with --tokens: a client needs a token, and its Host must be loopback or an --allow-host name', async () => {
    const token = 'f00d'.repeat(10);
    await writeFile(join(ws.project, 'tokens.txt'), `laptop:${token}\n`, { mode: 0o600 });
    let child: ChildProcess | undefined;
    let stderr = '';
    const done = runCli(
      ws,
      [
        'bridge',
        contract,
        '-t',
        'http',
        '--host',
        '0.0.0.0',
        '--tokens',
        'tokens.txt',
        '--allow-host',
        'mcp.example',
      ],
      {},
      {
        onSpawn: (c) => {
          child = c;
          c.stderr?.on('data', (chunk: Buffer) => {
            stderr += chunk.toString();
          });
        },
      },
    );
    try {
      const port = Number(
        await eventually(
          () => /on http:\/\/0\.0\.0\.0:(\d+)\/mcp \(bearer tokens: laptop\)$/m.exec(stderr)?.[1],
        ),
      );
      const status = (host: string, authorization?: string) =>
        new Promise<number>((resolve, reject) => {
          const req = httpRequest(
            {
              host: '127.0.0.1',
              port,
              path: '/mcp',
              method: 'POST',
              headers: {
                host,
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
                ...(authorization ? { authorization } : {}),
              },
            },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', reject);
          req.end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'initialize',
              params: {
                protocolVersion: '2025-06-18',
                capabilities: {},
                clientInfo: { name: 't', version: '1' },
              },
            }),
          );
        });
      expect(await status(`mcp.example:${port}`, `Bearer ${token}`)).toBe(200);
      expect(await status(`127.0.0.1:${port}`, `Bearer ${token}`)).toBe(200);
      expect(await status(`mcp.example:${port}`)).toBe(401);
      expect(await status(`mcp.example:${port}`, `Bearer ${token.slice(1)}0`)).toBe(401);
      expect(await status(`evil.example:${port}`, `Bearer ${token}`)).toBe(403);
      expect(stderr).not.toContain(token);
    } finally {
      child?.kill('SIGTERM');
      await done;
    }
  });

  it('--session-idle closes an idle 2025 session: the next request with its id is 404', async () => {
    let child: ChildProcess | undefined;
    let stderr = '';
    const done = runCli(
      ws,
      ['bridge', contract, '-t', 'http', '--port', '0', '--session-idle', '1'],
      {},
      {
        onSpawn: (c) => {
          child = c;
          c.stderr?.on('data', (chunk: Buffer) => {
            stderr += chunk.toString();
          });
        },
      },
    );
    try {
      const url = await eventually(() => /on (http:\/\/\S+)/.exec(stderr)?.[1]);
      const post = (body: unknown, session?: string) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } : {}),
          },
          body: JSON.stringify(body),
        });
      const init = await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      const session = init.headers.get('mcp-session-id') ?? '';
      expect(session).not.toBe('');
      await init.text();
      // Left alone for a second, the session is reaped (a line on stderr says so, without its id) ...
      await eventually(() => (stderr.includes(': closed an HTTP session (idle)') ? true : undefined));
      expect(stderr).not.toContain(session);
      // ... and its id is unknown from then on.
      const ping = await post({ jsonrpc: '2.0', id: 2, method: 'ping' }, session);
      await ping.text();
      expect(ping.status).toBe(404);
    } finally {
      child?.kill('SIGTERM');
      await done;
    }
  });
});
