import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  createHttpHandler,
  type HttpHandler,
  type SessionEndReason,
  serveOverHttp,
} from '../../src/serve/index.js';
import { eventually } from '../helpers/eventually.js';
import { startGateway, toolServer } from '../helpers/gateway.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const MODERN = '2026-07-28';

/** A server with `wait`: it answers when `release()` is called, or never (until cancelled). */
function waitingServer() {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const factory = () => {
    const server = new McpServer({ name: 'waiting', version: '1.0.0' });
    server.registerTool('wait', { description: 'Waits.', inputSchema: z.object({}) }, async (_args, ctx) => {
      await Promise.race([
        released,
        new Promise((resolve) => ctx.mcpReq.signal.addEventListener('abort', resolve, { once: true })),
      ]);
      return { content: [{ type: 'text', text: 'done' }] };
    });
    return server;
  };
  return { factory, release: () => release() };
}

function handlerOf(...args: Parameters<typeof createHttpHandler>): HttpHandler {
  const handler = createHttpHandler(...args);
  cleanups.push(() => handler.close());
  return handler;
}

const post = (handler: HttpHandler, body: unknown, headers: Record<string, string> = {}) =>
  handler.request('/mcp', {
    method: 'POST',
    headers: { ...HEADERS, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** Opens a 2025 session; the headers to use in it. */
async function openSession(handler: HttpHandler): Promise<Record<string, string>> {
  const response = await post(handler, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  await response.text();
  const session = response.headers.get('mcp-session-id');
  if (!session) throw new Error(`no session: HTTP ${response.status}`);
  const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
  await (await post(handler, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).text();
  return headers;
}

const call = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'wait', arguments: {} },
});

describe('createHttpHandler: an MCP endpoint without a port', () => {
  it('serves the configured path only, and refuses a foreign Host', async () => {
    const handler = handlerOf(waitingServer().factory);
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const elsewhere = await handler.request('/other', {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify(ping),
    });
    expect(elsewhere.status).toBe(404);
    expect((await handler.request('/', { method: 'GET' })).status).toBe(404);
    const foreign = await post(handler, ping, { host: 'evil.example' });
    expect(foreign.status).toBe(403);
    const custom = handlerOf(waitingServer().factory, { path: '/rpc' });
    expect((await post(custom, ping)).status).toBe(404);
  });

  it('answers valid JSON that is no request with -32600 (not -32700), and bad params with -32602', async () => {
    const handler = handlerOf(waitingServer().factory);
    const batch = await post(handler, '[]');
    expect(batch.status).toBe(400);
    expect(await batch.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: batches are not supported' },
    });
    const deepId = await post(
      handler,
      `{"jsonrpc":"2.0","id":${'['.repeat(10_000)}${']'.repeat(10_000)},"method":"ping"}`,
    );
    expect(deepId.status).toBe(400);
    expect(((await deepId.json()) as { error: { code: number } }).error.code).toBe(-32600);
    // A 2026-07-28 request with 10k-deep arguments overflowed the SDK's stack: HTTP 500.
    const arguments_ = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const deep = await handler.request('/mcp', {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'wait' },
      body: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"wait","arguments":${arguments_},"_meta":{"io.modelcontextprotocol/protocolVersion":"${MODERN}"}}}`,
    });
    expect(deep.status).toBe(400);
    expect(await deep.json()).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: { code: -32600, message: 'Invalid Request: nested deeper than 256 levels' },
    });
    const session = await openSession(handler);
    const list = await post(
      handler,
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: 5 } },
      session,
    );
    expect(await list.json()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32602,
        message: 'Invalid params of tools/list: params.cursor: expected string, received number',
      },
    });
  });

  it('answers a method 2026-07-28 removed, sent on that wire, with 404 / -32601 (not as a 2025 request)', async () => {
    const handler = handlerOf(waitingServer().factory);
    const meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
    };
    for (const method of ['initialize', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe']) {
      const response = await post(
        handler,
        { jsonrpc: '2.0', id: 7, method, params: { _meta: meta } },
        { 'mcp-protocol-version': MODERN, 'mcp-method': method },
      );
      expect([method, response.status]).toEqual([method, 404]);
      expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32601);
    }
    expect(handler.sessions).toBe(0);
  });

  it('takes a 2026-07-28 tools/call into the intercept only with a matching Mcp-Name; without one, 400', async () => {
    const taken: unknown[] = [];
    const handler = handlerOf(waitingServer().factory, {
      intercept: (message, reply) => {
        taken.push((message as { id: unknown }).id);
        void reply({ jsonrpc: '2.0', id: (message as { id: number }).id, result: { content: [] } });
        return true;
      },
    });
    const meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
    };
    const callOf = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'wait', arguments: {}, _meta: meta },
    });
    const modern = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call' };
    const missing = await post(handler, callOf(1), modern);
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { code: number } }).error.code).toBe(-32020);
    const spaced = await post(handler, callOf(2), { ...modern, 'mcp-name': '  wait ' });
    expect(spaced.status).toBe(200);
    await spaced.text();
    expect(taken).toEqual([2]);
  });

  it("refuses a 2026-07-28 tools/call whose Mcp-Param-* headers disagree with a proxy's tool schema (400, -32020)", async () => {
    const schema = {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        n: { type: 'integer', 'x-mcp-header': 'N' },
      },
    };
    const handler = handlerOf(waitingServer().factory, {
      toolSchema: (name) => (name === 'wait' ? schema : undefined),
      intercept: (message, reply) => {
        void reply({ jsonrpc: '2.0', id: (message as { id: number }).id, result: { content: [] } });
        return true;
      },
    });
    const meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const send = (headers: Record<string, string>) =>
      post(
        handler,
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'wait', arguments: { region: 'eu-west', n: 42 }, _meta: meta },
        },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'wait', ...headers },
      );
    const missing = await send({ 'mcp-param-n': '42' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: -32020,
        message:
          'Bad Request: the request headers and body disagree: the body carries region but the Mcp-Param-Region header is absent',
      },
    });
    expect((await send({ 'mcp-param-region': 'us-east', 'mcp-param-n': '42' })).status).toBe(400);
    expect((await send({ 'mcp-param-region': '=?base64?ZXUtd2VzdA?=', 'mcp-param-n': '42' })).status).toBe(
      400,
    );
    const fine = await send({ 'mcp-param-region': '=?base64?ZXUtd2VzdA==?=', 'mcp-param-n': '42.0' });
    expect(fine.status).toBe(200);
    await fine.text();
  });

  it('reaps a session idle past the timeout (and says why)', async () => {
    const ended: [string, SessionEndReason][] = [];
    const handler = handlerOf(waitingServer().factory, {
      idleMs: 50,
      onSessionEnd: (id, reason) => ended.push([id, reason]),
    });
    const session = await openSession(handler);
    expect(handler.sessions).toBe(1);
    await eventually(() => (ended.length > 0 ? true : undefined));
    expect(ended).toEqual([[session['mcp-session-id'], 'idle']]);
    expect(handler.sessions).toBe(0);
    expect((await post(handler, { jsonrpc: '2.0', id: 3, method: 'ping' }, session)).status).toBe(404);
  });

  it('keeps at most maxSessions, evicting the least recently used', async () => {
    const ended: [string, SessionEndReason][] = [];
    const handler = handlerOf(waitingServer().factory, {
      maxSessions: 2,
      onSessionEnd: (id, reason) => ended.push([id, reason]),
    });
    const first = await openSession(handler);
    const second = await openSession(handler);
    await (await post(handler, { jsonrpc: '2.0', id: 1, method: 'ping' }, first)).text(); // first is now newer
    await openSession(handler);
    expect(handler.sessions).toBe(2);
    expect(ended).toEqual([[second['mcp-session-id'], 'evicted']]);
    expect((await post(handler, { jsonrpc: '2.0', id: 2, method: 'ping' }, second)).status).toBe(404);
    expect((await post(handler, { jsonrpc: '2.0', id: 3, method: 'ping' }, first)).status).toBe(200);
  });

  it('refuses a second request with an id still in flight; the first one completes', async () => {
    const { factory, release } = waitingServer();
    const handler = handlerOf(factory);
    const session = await openSession(handler);
    const first = await post(handler, call(7), session);
    const second = await post(handler, call(7), session);
    expect(second.status).toBe(409);
    expect(await second.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32600, message: 'Invalid Request: id 7 is already in use' },
    });
    release();
    expect(await first.text()).toContain('"id":7');
    // Answered, the id is free again.
    expect(await (await post(handler, call(7), session)).text()).toContain('"text":"done"');
  });

  it('ends the stream of a request cancelled with notifications/cancelled', async () => {
    const handler = handlerOf(waitingServer().factory);
    const session = await openSession(handler);
    const pending = await post(handler, call(8), session);
    const body = pending.text();
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 8 } };
    expect((await post(handler, cancel, session)).status).toBe(202);
    // A cancelled request gets no answer (MCP); its stream used to stay open with nothing to come.
    expect(await body).not.toContain('"id":8');
  });

  it('shows a reaped session in the gateway status (one client fewer)', async () => {
    const started = await startGateway([toolServer('lib', { echo: 'Echoes.' })]);
    cleanups.push(started.close);
    const handler = handlerOf(started.gateway.factory, { idleMs: 100 });
    const clients = async () => {
      const client = new Client({ name: 'status', version: '1' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(
        new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
          fetch: (url, init) => handler.request(String(url), init),
        }),
      );
      try {
        const read = await client.readResource({ uri: 'mcpkit://gateway/status' });
        return (JSON.parse((read.contents[0] as { text: string }).text) as { clients: number }).clients;
      } finally {
        await client.close();
      }
    };
    const idle = await clients();
    await openSession(handler);
    expect(await clients()).toBe(idle + 1);
    await eventually(() => (handler.sessions === 0 ? true : undefined));
    expect(await clients()).toBe(idle);
  });
});

describe('serveOverHttp: HTTP edges', () => {
  it('answers two Host headers with 400 (RFC 9112)', async () => {
    const served = await serveOverHttp(waitingServer().factory);
    cleanups.push(() => served.close());
    // An initialize: with one Host header it opens a session (200).
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const socket = connect(served.port, '127.0.0.1');
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\ncontent-type: application/json\r\n` +
        `accept: application/json, text/event-stream\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    let reply = '';
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
    });
    await eventually(() => (reply.includes('\r\n\r\n') ? true : undefined));
    expect(reply.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    await eventually(() => (reply.includes('}') ? true : undefined));
    expect(reply).toContain('more than one Host header');
    socket.destroy();
  });

  it('answers an upload over the limit with 413 and Connection: close, which the client receives', async () => {
    const served = await serveOverHttp(waitingServer().factory, { maxBodyBytes: 1024 });
    cleanups.push(() => served.close());
    const response = await new Promise<{
      status: number | undefined;
      connection: string | undefined;
      body: string;
    }>((resolve, reject) => {
      const req = httpRequest(
        served.url,
        { method: 'POST', headers: { ...HEADERS, 'transfer-encoding': 'chunked' } },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => {
            body += chunk.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection, body }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      // Chunked, so the server cannot refuse before reading: it finds out mid-upload.
      const chunk = Buffer.alloc(16 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        while (sent < 64 && req.write(chunk)) sent++;
        if (sent < 64) req.once('drain', pump);
        else req.end();
      };
      pump();
    });
    expect(response.status).toBe(413);
    expect(response.connection).toBe('close');
    expect(JSON.parse(response.body).error).toEqual({ code: -32600, message: 'Request body too large' });
  });
});
