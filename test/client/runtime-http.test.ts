import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Runtime } from '../../src/client/index.js';
import { isMcpkitError } from '../../src/errors/index.js';
import { runtimesForEachTest } from '../helpers/runtimes.js';
import { freePort, startEverythingHttp, startSessionServer } from '../helpers/servers.js';

/** The Runtime's remote servers: Streamable HTTP, the SSE fallback, lost sessions, refused connections. */
const { cleanups, runtime } = runtimesForEachTest();

describe('Runtime over HTTP', () => {
  it('connects over Streamable HTTP, and falls back to SSE when the POST gets a 404', async () => {
    const http = await startEverythingHttp('streamableHttp');
    cleanups.push(http.stop);
    const sse = await startEverythingHttp('sse');
    cleanups.push(sse.stop);
    const rt = await runtime({
      servers: [
        { name: 'http', entry: { type: 'http', url: http.url } },
        { name: 'sse-auto', entry: { url: sse.url } },
        { name: 'sse', entry: { type: 'sse', url: sse.url } },
      ],
    });
    for (const id of ['http', 'sse-auto', 'sse']) {
      expect(rt.server(id).status).toBe('ready');
      const echo = await rt.server(id).callTool('echo', { message: id });
      expect(echo.content).toEqual([{ type: 'text', text: `Echo: ${id}` }]);
    }
  });

  it('re-initializes when the server answers 404 for a lost session, and retries the call once', async () => {
    const server = await startSessionServer();
    cleanups.push(server.stop);
    const rt = await runtime({ servers: [{ name: 's', entry: { url: server.url } }] });
    expect(rt.server('s').protocolVersion).toBe('2025-06-18');
    expect((await rt.server('s').callTool('whoami')).content).toEqual([
      { type: 'text', text: 'session s-1' },
    ]);
    await fetch(`${server.base}/forget`);
    const [a, b] = await Promise.all([rt.server('s').callTool('whoami'), rt.server('s').callTool('whoami')]);
    expect([a.content, b.content]).toEqual([
      [{ type: 'text', text: 'session s-2' }],
      [{ type: 'text', text: 'session s-2' }],
    ]);
    expect(await (await fetch(`${server.base}/stats`)).json()).toEqual({ initializes: 2 });
    expect(rt.server('s').status).toBe('ready');
  });

  it('retries a refused remote connection with backoff until the server is up', async () => {
    const port = await freePort();
    const late = sleep(1200).then(() => startEverythingHttp('streamableHttp', port));
    cleanups.push(async () => (await late).stop());
    const rt = await runtime({ servers: [{ name: 'late', entry: { url: `http://127.0.0.1:${port}/mcp` } }] });
    expect(rt.server('late').status).toBe('ready');
  });

  it('gives up on a refused remote connection at the startup timeout', async () => {
    const port = await freePort();
    const started = Date.now();
    const error = await Runtime.create({
      startupTimeoutMs: 1500,
      servers: [{ name: 'down', entry: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } }],
    }).catch((e: unknown) => e);
    expect(isMcpkitError(error, 'SERVER_FAILED')).toBe(true);
    // The real cause, not just the timeout: the last attempt's refused connection.
    expect((error as Error).message).toBe(
      `server "down" failed to start (timeout): no handshake within 1500 ms; last attempt: connection refused at 127.0.0.1:${port}: is the server running?`,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
  });
});
