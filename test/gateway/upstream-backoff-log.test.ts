import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../src/serve/index.js';
import { connectInProcess, eventually, startGateway } from '../helpers/gateway.js';
import { freePort } from '../helpers/servers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A remote MCP server on 127.0.0.1 that answers 503 until `up` is set, then serves one tool. */
async function flakyRemote(): Promise<{ url: string; up: { value: boolean } }> {
  const up = { value: false };
  const mcp = createHttpHandler(() => {
    const server = new McpServer({ name: 'far', version: '1.0.0' });
    server.registerTool('ping', { description: 'Answers pong.' }, async () => ({
      content: [{ type: 'text', text: 'pong' }],
    }));
    return server;
  });
  const http: Server = createServer((req, res) => {
    if (up.value) return void mcp.handle(req, res);
    res.writeHead(503, { 'content-type': 'text/plain' }).end('maintenance');
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, up };
}

const restartsOf = (gateway: { status(): { name: string; restarts: number }[] }) =>
  gateway.status().find((s) => s.name === 'far')?.restarts ?? 0;

describe('a dead remote upstream is logged once per state change, restarted with backoff', () => {
  it('answering 503: one line when it goes down, one when it restarts, one when it is ready again', async () => {
    const remote = await flakyRemote();
    const started = await startGateway([{ name: 'far', entry: { url: remote.url } }], {
      readyWaitMs: 0,
      restartDelayMs: 10,
      restartMaxDelayMs: 40,
    });
    cleanups.push(started.close);
    await eventually(() => (restartsOf(started.gateway) >= 6 ? true : undefined));
    const far = () => started.log.filter((line) => line.includes('"far"'));
    expect(far()).toHaveLength(2);
    expect(far()[0]).toMatch(/^server "far" failed \(\w+\): .*503.*; restarting with backoff$/);
    expect(far()[1]).toBe('restarting server "far" (restart 1); quiet until it is ready');
    remote.up.value = true;
    await eventually(() => (started.gateway.status()[0]?.state === 'ready' ? true : undefined));
    const restarts = restartsOf(started.gateway);
    expect(far().slice(2)).toEqual([`server "far": ready again (after ${restarts} restarts)`]);
    const client = await connectInProcess(started.gateway);
    cleanups.push(client.close);
    expect((await client.client.listTools()).tools.map((t) => t.name)).toEqual(['far__ping']);
  });

  it('refusing connections: the first retry says why, once; later retries and restarts say nothing', async () => {
    const port = await freePort(); // bound, then closed: nothing listens there
    const started = await startGateway(
      [{ name: 'far', entry: { url: `http://127.0.0.1:${port}/mcp`, startupTimeout: 1500 } }],
      { readyWaitMs: 0, restartDelayMs: 10, restartMaxDelayMs: 40 },
    );
    cleanups.push(started.close);
    await eventually(() => (restartsOf(started.gateway) >= 3 ? true : undefined));
    expect(started.log.filter((line) => line.includes('"far"'))).toEqual([
      `server "far": unreachable (connection refused at 127.0.0.1:${port}), retrying with backoff`,
      'restarting server "far" (restart 1); quiet until it is ready',
    ]);
  });
});
