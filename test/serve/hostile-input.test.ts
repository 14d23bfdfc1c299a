import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { PassThrough } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { LineSplitter } from '../../src/internal/line-splitter.js';
import {
  createHttpHandler,
  type HttpHandler,
  isAllowedRequest,
  serveOverHttp,
  serveOverStdio,
} from '../../src/serve/index.js';
import { CLI } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { fixture } from '../helpers/servers.js';
import { PROTOTYPE_NAMES } from './frame-fuzz.js';

// Issue 34: input that crashed a server or got a wrong answer. A method named after an Object.prototype
// member found that member in the frame checker's plain-object schema table and killed every stdio server.

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const MODERN = '2026-07-28';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
};

const factory = () => {
  const server = new McpServer({ name: 'hostile', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes.', inputSchema: z.object({}) }, async () => ({
    content: [{ type: 'text', text: 'ok' }],
  }));
  return server;
};

function handlerOf(): HttpHandler {
  const handler = createHttpHandler(factory);
  cleanups.push(() => handler.close());
  return handler;
}

const modernPost = (handler: HttpHandler, method: string, params: object, headers = {}) =>
  handler.request('/mcp', {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': method, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: META } }),
  });

/** Lines a stdio server writes, and a way to wait for the answer to an id. */
function answers(output: NodeJS.ReadableStream) {
  const seen: { id?: unknown; error?: { code: number }; result?: unknown }[] = [];
  const lines = new LineSplitter((line) => seen.push(JSON.parse(line)));
  output.setEncoding('utf8');
  output.on('data', (chunk: string) => lines.push(chunk));
  return seen;
}

describe.concurrent('a name from Object.prototype or Function.prototype is just an unknown name', () => {
  it('over stdio (in-process): -32601 with the request’s id for each, and the server still answers', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const served = serveOverStdio(factory, { input, output });
    cleanups.push(() => served.close());
    const seen = answers(output);
    PROTOTYPE_NAMES.forEach((method, id) => {
      input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method })}\n`);
      input.write(`${JSON.stringify({ jsonrpc: '2.0', id: `p${id}`, method, params: {} })}\n`);
    });
    input.write('{"jsonrpc":"2.0","id":"last","method":"tools/list"}\n');
    await eventually(() => (seen.length === 2 * PROTOTYPE_NAMES.length + 1 ? true : undefined));
    expect(seen.find((m) => m.id === 'last')?.result).toBeDefined();
    for (const [id, method] of PROTOTYPE_NAMES.entries())
      for (const key of [id, `p${id}`])
        expect([method, seen.find((m) => m.id === key)?.error?.code]).toEqual([method, -32601]);
  });

  it('over stdio (the bridge, spawned): the process stays up and answers every frame', async () => {
    const child = spawn(process.execPath, [CLI, 'bridge', fixture('bridge/contract.yaml')], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    cleanups.push(() => void child.kill('SIGKILL'));
    child.stderr.resume();
    const seen = answers(child.stdout);
    for (const [id, method] of ['constructor', '__proto__', 'toString', 'hasOwnProperty'].entries())
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method })}\n`);
    // A tool named after one: an unknown tool (it found the job handlers' table and ran `constructor`).
    for (const name of ['constructor', '__proto__', 'toString'])
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: `tool-${name}`, method: 'tools/call', params: { name, arguments: {} } })}\n`,
      );
    child.stdin.write('{"jsonrpc":"2.0","id":"after","method":"ping"}\n');
    await eventually(() => (seen.length >= 8 || child.exitCode !== null ? true : undefined));
    expect(child.exitCode).toBe(null);
    expect(Object.fromEntries(seen.map((m) => [String(m.id), m.error?.code ?? 'ok']))).toEqual({
      0: -32601,
      1: -32601,
      2: -32601,
      3: -32601,
      'tool-constructor': -32602,
      'tool-__proto__': -32602,
      'tool-toString': -32602,
      after: 'ok',
    });
  });

  it('over HTTP, both eras: -32601 with the request’s id, never a 500', async () => {
    const handler = handlerOf();
    for (const method of PROTOTYPE_NAMES) {
      const modern = await modernPost(handler, method, {});
      expect([method, modern.status, await modern.json()]).toEqual([
        method,
        404,
        { jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found' } },
      ]);
    }
    const init = await handler.request('/mcp', {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    await init.text();
    const session = { 'mcp-session-id': init.headers.get('mcp-session-id') ?? '' };
    for (const method of PROTOTYPE_NAMES) {
      const legacy = await handler.request('/mcp', {
        method: 'POST',
        headers: { ...HEADERS, ...session, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method }),
      });
      const text = await legacy.text();
      expect([method, legacy.status]).toEqual([method, 200]);
      expect([method, JSON.parse(text.replace(/^[\s\S]*?data: /, ''))]).toEqual([
        method,
        { jsonrpc: '2.0', id: 9, error: { code: -32601, message: 'Method not found' } },
      ]);
    }
  });
});

describe.concurrent('HTTP answers what the spec asks for', () => {
  it('refuses a Host with user info (127.0.0.1:PORT@evil.example) like any foreign host: 403', async () => {
    expect(isAllowedRequest({ host: '127.0.0.1:3000@evil.example' })).toBe(false);
    expect(isAllowedRequest({ host: '127.0.0.1:99999' })).toBe(false);
    expect(isAllowedRequest({ host: '127.0.0.1:3000/x' })).toBe(false);
    const server = await serveOverHttp(factory, { port: 0 });
    cleanups.push(() => server.close());
    const { port } = new URL(server.url);
    const status = (host: string) =>
      new Promise<number | undefined>((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { ...HEADERS, host } },
          (res) => {
            res.resume();
            resolve(res.statusCode);
          },
        );
        req.once('error', reject);
        req.end('{"jsonrpc":"2.0","id":1,"method":"ping"}');
      });
    expect(await status(`127.0.0.1:${port}@evil.example`)).toBe(403);
    expect(await status('evil.example')).toBe(403);
  });

  it('answers a 2026-07-28 POST that accepts only text/html with 406', async () => {
    const handler = handlerOf();
    const html = await modernPost(handler, 'tools/list', {}, { accept: 'text/html' });
    expect(html.status).toBe(406);
    expect(await html.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32000,
        message: 'Not Acceptable: the client must accept application/json and text/event-stream',
      },
    });
    const json = await modernPost(handler, 'tools/list', {}, { accept: 'application/json' });
    expect(json.status).toBe(200);
  });

  it('answers bad params of a 2026-07-28 request with -32602 and one readable line, not a zod dump', async () => {
    const handler = handlerOf();
    const list = await modernPost(handler, 'tools/list', { cursor: [] });
    expect(list.status).toBe(400);
    expect(await list.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32602,
        message: 'Invalid params of tools/list: params.cursor: expected string, received array',
      },
    });
    const read = await modernPost(handler, 'resources/read', { uri: 5 });
    expect(((await read.json()) as { error: { code: number; message: string } }).error).toEqual({
      code: -32602,
      message: 'Invalid params of resources/read: params.uri: expected string, received number',
    });
  });
});
