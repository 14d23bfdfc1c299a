import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createHttpHandler, type HttpHandler, RedisState, SessionSeal } from '../../src/serve/index.js';
import { missingEngines } from '../helpers/engines.js';
import { eventually } from '../helpers/eventually.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';
import { sseEvents } from '../helpers/sse.js';

// Replicas in-process: handlers that share a session key (and Redis) but nothing else, as replicas behind a
// load balancer with no affinity.
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const KEY = 'k'.repeat(40);
const VERSION = '2025-11-25';

/** A server with `steps`: it logs "step 1".."step 3", each after the test says go, then answers. */
function stepServer() {
  const gates: (() => void)[] = [];
  const waiting: Promise<void>[] = [];
  for (let i = 0; i < 3; i++) waiting.push(new Promise<void>((resolve) => gates.push(resolve)));
  const factory = () => {
    const server = new McpServer({ name: 'steps', version: '1.0.0' }, { capabilities: { logging: {} } });
    server.registerTool('steps', { description: 'Steps.', inputSchema: z.object({}) }, async (_a, ctx) => {
      for (let i = 0; i < 3; i++) {
        await waiting[i];
        await ctx.mcpReq.notify({
          method: 'notifications/message',
          params: { level: 'info', data: `step ${i + 1}` },
        });
      }
      return { content: [{ type: 'text', text: 'all steps done' }] };
    });
    return server;
  };
  return { factory, go: (i: number) => gates[i]?.() };
}

const post = (handler: HttpHandler, body: unknown, headers: Record<string, string> = {}) =>
  handler.request('/mcp', {
    method: 'POST',
    headers: { ...HEADERS, ...headers },
    body: JSON.stringify(body),
  });

async function open(handler: HttpHandler): Promise<Record<string, string>> {
  const response = await post(handler, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  await response.text();
  const id = response.headers.get('mcp-session-id');
  if (!id) throw new Error(`no session: HTTP ${response.status}`);
  const headers = { 'mcp-session-id': id, 'mcp-protocol-version': VERSION };
  await (await post(handler, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).text();
  return headers;
}

const handlers: HttpHandler[] = [];
afterAll(async () => {
  for (const h of handlers) await h.close();
});
function replica(factory: Parameters<typeof createHttpHandler>[0], options = {}) {
  const handler = createHttpHandler(factory, options);
  handlers.push(handler);
  return handler;
}

/**
 * Calls `steps` on `first`, reads until "step 1", drops the stream, lets the call finish, and resumes on
 * `second` with Last-Event-ID: the raw text read before the drop, and what each resumed event carried.
 */
async function cutAndResume(
  first: HttpHandler,
  second: HttpHandler,
  headers: Record<string, string>,
  go: (i: number) => void,
): Promise<{ seen: string; resumed: (string | undefined)[] }> {
  const call = await post(
    first,
    { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'steps', arguments: {} } },
    headers,
  );
  const reader = call.body?.getReader();
  if (!reader) throw new Error('no body');
  go(0);
  let seen = '';
  const decoder = new TextDecoder();
  while (!seen.includes('step 1')) seen += decoder.decode((await reader.read()).value);
  await reader.cancel(); // the client's connection drops here
  const last = sseEvents(seen)
    .filter((e) => e.id)
    .at(-1)?.id as string;
  go(1);
  go(2);
  // The call finishes while the client is away; its events are kept for it.
  const text = await eventually(async () => {
    const response = await second.request('/mcp', {
      method: 'GET',
      headers: { ...headers, accept: 'text/event-stream', 'last-event-id': last },
    });
    const body = await response.text();
    return body.includes('all steps done') ? body : undefined;
  });
  const resumed = sseEvents(text).map(
    ({ data }) =>
      (data?.params as { data?: string } | undefined)?.data ?? (data?.result ? 'result' : undefined),
  );
  return { seen, resumed };
}

describe('sealed session ids: a 2025 session works on any replica with the key', () => {
  it('a session opened on one replica is served by another; a replica with another key says 404', async () => {
    const { factory } = stepServer();
    const seal = new SessionSeal(KEY);
    const a = replica(factory, { shared: { seal } });
    const b = replica(factory, { shared: { seal } });
    const other = replica(factory, { shared: { seal: new SessionSeal('x'.repeat(40)) } });
    const headers = await open(a);
    expect(headers['mcp-session-id']).toMatch(/^s1\./u);
    const listed = await post(b, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers);
    expect(listed.status).toBe(200);
    expect(await listed.text()).toContain('"name":"steps"');
    expect(b.sessions).toBe(1);
    const refused = await post(other, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers);
    expect(refused.status).toBe(404);
    const tampered = { ...headers, 'mcp-session-id': `${headers['mcp-session-id']?.slice(0, -2)}AA` };
    expect((await post(b, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, tampered)).status).toBe(404);
  });

  it('refuses a key shorter than 32 bytes', () => {
    expect(() => new SessionSeal('short')).toThrow(/needs at least 32/u);
  });
});

describe.skipIf(missingEngines('redis'))('with Redis: resumption and ends shared by replicas', () => {
  let redis: RedisServer;
  const states: RedisState[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const state of states) await state.close();
    await redis?.close();
  });
  const connect = async () => {
    const state = await RedisState.connect(redis.url);
    states.push(state);
    return state;
  };

  it('an SSE stream cut on one replica is resumed on another with Last-Event-ID, missing nothing', async () => {
    const { factory, go } = stepServer();
    const seal = new SessionSeal(KEY);
    const a = replica(factory, { shared: { seal, state: await connect() } });
    const b = replica(factory, { shared: { seal, state: await connect() } });
    const { resumed } = await cutAndResume(a, b, await open(a), go);
    expect(resumed).toEqual(['step 2', 'step 3', 'result']);
  });

  it('a session ended (DELETE) on one replica is gone on all of them', async () => {
    const { factory } = stepServer();
    const seal = new SessionSeal(KEY);
    const a = replica(factory, { shared: { seal, state: await connect() } });
    const b = replica(factory, { shared: { seal, state: await connect() } });
    const c = replica(factory, { shared: { seal, state: await connect() } });
    const headers = await open(a);
    expect((await post(b, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers)).status).toBe(200);
    const deleted = await a.request('/mcp', { method: 'DELETE', headers });
    expect(deleted.status).toBe(200);
    await eventually(() => (b.sessions === 0 ? true : undefined));
    expect((await post(b, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers)).status).toBe(404);
    expect((await post(c, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, headers)).status).toBe(404);
  });
});

describe.skipIf(missingEngines('redis'))('with Redis gone', () => {
  it('a session still moves between replicas (its id is sealed); one line says resumption is off', async () => {
    const redis = await startRedis();
    const errors: string[] = [];
    const connect = () => RedisState.connect(redis.url, (error) => errors.push(error.message));
    const [stateA, stateB] = [await connect(), await connect()];
    try {
      const { factory, go } = stepServer();
      const seal = new SessionSeal(KEY);
      const a = replica(factory, { shared: { seal, state: stateA } });
      const b = replica(factory, { shared: { seal, state: stateB } });
      const headers = await open(a);
      await redis.close();
      for (let i = 0; i < 3; i++) go(i);
      const call = await post(
        b,
        { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'steps', arguments: {} } },
        headers,
      );
      expect(call.status).toBe(200);
      expect(await call.text()).toContain('all steps done');
      await eventually(() =>
        errors.some((e) => e.startsWith('cannot store SSE events (no resumption until Redis is back)'))
          ? true
          : undefined,
      );
    } finally {
      await stateA.close();
      await stateB.close();
      await redis.close();
    }
  });
});

describe('one process, no Redis: SSE polling and resumption (SEP-1699)', () => {
  it('opens a stream with a priming event (id, retry, no data) and replays what a dropped client missed', async () => {
    const { factory, go } = stepServer();
    const handler = replica(factory);
    const { seen, resumed } = await cutAndResume(handler, handler, await open(handler), go);
    expect(seen.split('\n\n')[0]).toMatch(/^id: \S+\nretry: 1000\ndata: $/u);
    expect(resumed).toEqual(['step 2', 'step 3', 'result']);
  });
});
