import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createHttpHandler, serveOverHttp } from '../../src/serve/index.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A server whose `wait` answers when released. */
function waitingServer() {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started: () => void = () => undefined;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const factory = () => {
    const server = new McpServer({ name: 'waiting', version: '1.0.0' });
    server.registerTool('wait', { description: 'Waits.', inputSchema: z.object({}) }, async () => {
      started();
      await released;
      return { content: [{ type: 'text', text: 'done' }] };
    });
    return server;
  };
  return { factory, release: () => release(), running };
}

describe('/healthz, /readyz and drain', () => {
  it('answers probes without Host checks or a token; /readyz follows ready()', async () => {
    let ready = false;
    const { factory } = waitingServer();
    const handler = createHttpHandler(factory, { ready: () => ready });
    cleanups.push(() => handler.close());
    const probe = async (path: string) => {
      const res = await handler.request(`http://lb.internal${path}`);
      return [res.status, await res.text()];
    };
    expect(await probe('/healthz')).toEqual([200, 'ok\n']);
    expect(await probe('/readyz')).toEqual([503, 'not ready\n']);
    ready = true;
    expect(await probe('/readyz')).toEqual([200, 'ready\n']);
    expect((await handler.request('http://lb.internal/mcp', { method: 'POST', body: '{}' })).status).toBe(
      403,
    );
  });

  it('a drain refuses new requests (503) and waits for the call in progress, which gets its answer', async () => {
    const { factory, release, running } = waitingServer();
    const http = await serveOverHttp(factory);
    cleanups.push(() => http.close());
    const call = fetch(http.url, {
      method: 'POST',
      headers: {
        ...HEADERS,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'wait',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'wait',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    await running;
    let drained: boolean | undefined;
    const draining = http.drain(20_000).then((result) => {
      drained = result;
    });
    const readyz = await fetch(http.url.replace('/mcp', '/readyz')).catch(() => undefined);
    // Either refused at the socket (no longer accepting) or told it is draining: never served.
    if (readyz) expect([readyz.status, await readyz.text()]).toEqual([503, 'draining\n']);
    expect(drained).toBeUndefined();
    release();
    const answer = await call;
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('done');
    await draining;
    expect(drained).toBe(true);
  });

  it('a drain gives up after its limit when a call does not end', async () => {
    const { factory, running } = waitingServer();
    const http = await serveOverHttp(factory);
    cleanups.push(() => http.close());
    void fetch(http.url, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    }).then(async (res) => {
      await res.text();
      const session = {
        'mcp-session-id': res.headers.get('mcp-session-id') ?? '',
        'mcp-protocol-version': '2025-06-18',
      };
      await fetch(http.url, {
        method: 'POST',
        headers: { ...HEADERS, ...session },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'wait', arguments: {} },
        }),
      }).catch(() => undefined);
    });
    await running;
    expect(await http.drain(50)).toBe(false);
  });
});
