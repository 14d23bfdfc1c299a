import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it, onTestFinished } from 'vitest';
import * as z from 'zod';
import { createHttpHandler } from '../../src/serve/index.js';
import { MemoryEventStore, PROCESS_EVENT_BUDGET } from '../../src/serve/memory-events.js';
import { eventually } from '../helpers/eventually.js';
import { sseEvents } from '../helpers/sse.js';

const log = (text: string): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: text },
});

async function replay(store: MemoryEventStore, after: string) {
  const sent: [string, unknown][] = [];
  const stream = await store.replayEventsAfter(after, {
    send: async (id, message) => {
      sent.push([id, (message as { params?: { data?: string } }).params?.data?.slice(0, 5)]);
    },
  });
  return { stream, sent };
}

describe('MemoryEventStore: one 2025 session’s SSE events for Last-Event-ID', () => {
  it('replays the events of that stream after the id, not those of other streams', async () => {
    const store = new MemoryEventStore();
    const priming = await store.storeEvent('a', {} as JSONRPCMessage);
    await store.storeEvent('a', log('one'));
    await store.storeEvent('b', log('other'));
    await store.storeEvent('a', log('two'));
    expect(await replay(store, priming)).toEqual({
      stream: 'a',
      sent: [
        ['a/2', 'one'],
        ['a/4', 'two'],
      ],
    });
    await expect(store.replayEventsAfter('nonsense', { send: async () => undefined })).rejects.toThrow(
      'not an event id of this session: nonsense',
    );
  });

  it('keeps about 512 KB of a session’s events (the latest always, up to 4 MB): older large ones are gone', async () => {
    const store = new MemoryEventStore({ limit: 64 * 1024 * 1024, used: 0, stores: new Set() });
    const priming = await store.storeEvent('a', {} as JSONRPCMessage);
    const kb = (n: number, size: number) => log(`${n}`.repeat(size * 1024));
    for (const n of [1, 2, 3]) await store.storeEvent('a', kb(n, 200));
    expect((await replay(store, priming)).sent).toEqual([
      ['a/3', '22222'],
      ['a/4', '33333'],
    ]);
    const large = await store.storeEvent('a', log('4'.repeat(3 * 1024 * 1024)));
    expect(large).toBe('a/5');
    expect((await replay(store, priming)).sent).toEqual([['a/5', '44444']]);
    // Over 4 MB: not kept, and nothing else is pushed out for it.
    await store.storeEvent('a', log('5'.repeat(5 * 1024 * 1024)));
    expect((await replay(store, priming)).sent).toEqual([['a/5', '44444']]);
  });

  it('keeps the latest answer when notifications after it pass the allowance, and the newest event beside it', async () => {
    const store = new MemoryEventStore({ limit: 64 * 1024 * 1024, used: 0, stores: new Set() });
    const call = await store.storeEvent('call', {} as JSONRPCMessage);
    const answer = (id: number, text: string): JSONRPCMessage => ({
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text }] },
    });
    await store.storeEvent('call', answer(1, 'A'.repeat(2 * 1024 * 1024)));
    // What an upstream sends right after such a call, to every session: it must not push the answer out.
    await store.storeEvent('standalone', { jsonrpc: '2.0', method: 'notifications/resources/list_changed' });
    await store.storeEvent('standalone', log('after'));
    const texts = async (after: string) => {
      const sent: string[] = [];
      await store.replayEventsAfter(after, {
        send: async (_, message) => {
          const result = (message as { result?: { content: { text: string }[] } }).result;
          sent.push(
            result ? `${result.content[0]?.text.slice(0, 3)} (${result.content[0]?.text.length})` : 'other',
          );
        },
      });
      return sent;
    };
    expect(await texts(call)).toEqual([`AAA (${2 * 1024 * 1024})`]);
    // The newest event is kept too; the notification before it went.
    expect((await replay(store, 'standalone/0')).sent).toEqual([['standalone/4', 'after']]);
    // A newer answer takes its place.
    const second = await store.storeEvent('second', {} as JSONRPCMessage);
    await store.storeEvent('second', answer(2, 'B'.repeat(600 * 1024)));
    expect(await texts(call)).toEqual([]);
    expect(await texts(second)).toEqual([`BBB (${600 * 1024})`]);
  });

  it('shares one budget among sessions: the one keeping most gives up its oldest, and a closed one gives all back', async () => {
    const budget = { limit: 1024 * 1024, used: 0, stores: new Set<MemoryEventStore>() };
    const sessions = Array.from({ length: 8 }, () => new MemoryEventStore(budget));
    const primings = await Promise.all(sessions.map((store) => store.storeEvent('s', {} as JSONRPCMessage)));
    for (let round = 0; round < 3; round++)
      for (const store of sessions) await store.storeEvent('s', log(`${round}`.repeat(200 * 1024)));
    // 24 events of 200 KB asked for, 1 MB allowed in all: five kept, the newest, each session its latest at most.
    expect(budget.used).toBeLessThanOrEqual(budget.limit);
    const kept = await Promise.all(
      sessions.map(async (store, i) => (await replay(store, primings[i] as string)).sent),
    );
    expect(kept.flat().length).toBe(5);
    expect(kept.slice(3).map((sent) => sent.map(([, text]) => text))).toEqual(Array(5).fill(['22222']));
    for (const store of sessions) store.dispose();
    expect(budget).toEqual({ limit: 1024 * 1024, used: 0, stores: new Set() });
  });
});

/** A handler serving `server()` and a 2025 session opened on it: its headers and a POST helper. */
async function session2025(server: () => McpServer) {
  const handler = createHttpHandler(server);
  onTestFinished(() => handler.close());
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    handler.request('/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });
  const opened = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  await opened.text();
  const session = {
    'mcp-session-id': opened.headers.get('mcp-session-id') ?? '',
    'mcp-protocol-version': '2025-11-25',
  };
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
  const call = (id: number) =>
    post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'big', arguments: {} } }, session);
  return { handler, session, call };
}

function bigServer(size: number, made: McpServer[] = []): () => McpServer {
  return () => {
    const server = new McpServer({ name: 'big', version: '1' });
    server.registerTool('big', { inputSchema: z.object({}) }, async () => ({
      content: [{ type: 'text', text: 'x'.repeat(size) }],
    }));
    server.registerResource('doc', 'test://doc', {}, async () => ({
      contents: [{ uri: 'test://doc', text: 'd' }],
    }));
    made.push(server);
    return server;
  };
}

describe('a 2025 session’s events over HTTP', () => {
  it('count toward the process budget while the session lives, and are given back when it is deleted', async () => {
    const before = PROCESS_EVENT_BUDGET.used;
    const { handler, session, call } = await session2025(bigServer(100_000));
    expect(await (await call(1)).text()).toContain('x'.repeat(1000));
    expect(PROCESS_EVENT_BUDGET.used - before).toBeGreaterThan(100_000);
    const deleted = await handler.request('/mcp', { method: 'DELETE', headers: session });
    expect(deleted.status).toBe(200);
    await eventually(() => (PROCESS_EVENT_BUDGET.used === before ? true : undefined));
  });

  it('replay a 1 MB answer to a client that lost its stream, though a list_changed came after it', async () => {
    const made: McpServer[] = [];
    const { handler, session, call } = await session2025(bigServer(1_000_000, made));
    const text = await (await call(1)).text();
    const priming = sseEvents(text)[0]?.id as string;
    // What an upstream sends after such a call (server-everything's gzip tool does): a notification to the session.
    for (const server of made) await server.server.sendResourceListChanged();
    const resumed = await handler.request('/mcp', {
      method: 'GET',
      headers: { ...session, accept: 'text/event-stream', 'last-event-id': priming },
    });
    const body = await resumed.text();
    const results = sseEvents(body).map(
      ({ data }) =>
        ((data?.result as { content: { text: string }[] } | undefined)?.content[0]?.text ?? '').length,
    );
    expect(results).toEqual([1_000_000]);
  });
});
