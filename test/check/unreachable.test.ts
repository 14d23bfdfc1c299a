import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../src/check/index.js';
import { runInProcess } from '../config/run-in-process.js';
import { createWorkspace, type Workspace } from '../helpers/cli.js';
import { fixture, freePort } from '../helpers/servers.js';

let ws: Workspace;
beforeAll(async () => {
  ws = await createWorkspace();
});
afterAll(async () => {
  await ws.cleanup();
});

/** `mcpkit check` in this process: the exit code, the one stderr line, and how long it took. */
async function check(args: string[]) {
  const started = performance.now();
  const r = await runInProcess(ws, ['check', ...args]);
  return { ...r, ms: performance.now() - started };
}

describe.concurrent('a server that cannot be checked at all is one line, at once (exit 1)', () => {
  it('a process that exits before the handshake: its exit code (it took 56 s, seven gates)', async () => {
    const r = await check(['--', process.execPath, '-e', '1']);
    expect(r.stderr).toBe(
      `mcpkit: server "${process.execPath} -e 1" exited with code 0 before answering initialize (nothing on stderr)\n`,
    );
    expect(r).toMatchObject({ code: 1, stdout: '' });
    // Every gate waited out its timeouts before; now nothing waits for a process that is gone.
    expect(r.ms).toBeLessThan(15_000);
  });

  it('a server that starts but never answers: one line naming the stray stdout line (it took 67 s, seven gates)', async () => {
    const script = 'console.log("hello not json"); setInterval(() => {}, 1000)';
    const r = await check(['--startup-timeout', '1', '--', process.execPath, '-e', script]);
    expect(r.stderr).toBe(
      `mcpkit: server "${process.execPath} -e '${script}'" did not answer initialize within 1 s; its stdout carried a line that is not JSON-RPC: "hello not json" (stdout must carry only protocol frames; log to stderr)\n`,
    );
    expect(r).toMatchObject({ code: 1, stdout: '' });
  });

  it('a Node server that throws at start: its Error: line, not the stack', async () => {
    const r = await check(['--', process.execPath, '-e', "throw new TypeError('no config')"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^mcpkit: server ".+" exited with code 1 before answering initialize: TypeError: no config\n$/,
    );
  });

  it('a command that does not exist', async () => {
    const r = await check(['--', 'mcpkit-no-such-command-xyz']);
    expect(r).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'mcpkit: cannot start "mcpkit-no-such-command-xyz": not found (is it installed and on PATH?)\n',
    });
  });

  it('--url with nothing listening: connection refused at host:port', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const r = await check(['--url', url]);
    expect(r).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `mcpkit: ${url}: connection refused at 127.0.0.1:${port} (is the server running?)\n`,
    });
  });

  it('--url of a web server that is not MCP: its status and content type', async () => {
    const web: Server = createHttpServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end('<h1>Not Found</h1>');
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(web.address() as AddressInfo).port}/mcp`;
      const r = await check(['--url', url]);
      expect(r).toMatchObject({
        code: 1,
        stdout: '',
        stderr: `mcpkit: ${url}: not an MCP endpoint: HTTP 404 text/html\n`,
      });
    } finally {
      web.closeAllConnections();
      await new Promise((resolve) => web.close(resolve));
    }
  });
});

describe('check --json', () => {
  it('gives timings as numbers, the unit in the key', async () => {
    const r = await check([
      '--json',
      '--only',
      'handshake',
      '--',
      process.execPath,
      fixture('servers/check-server.mjs'),
    ]);
    expect(r.code).toBe(0);
    const evidence = (JSON.parse(r.stdout) as CheckReport).gates[0]?.evidence ?? {};
    expect(evidence.spawnToInitializedP50Ms).toEqual(expect.any(Number));
    expect(evidence.pingRoundTripP50Ms).toEqual(expect.any(Number));
    expect(Object.keys(evidence)).not.toContain('spawnToInitializedP50');
  });
});
