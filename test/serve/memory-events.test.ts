import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it, onTestFinished } from 'vitest';
import * as z from 'zod';
import { createHttpHandler } from '../../src/serve/index.js';
import { MemoryEventStore, PROCESS_EVENT_BUDGET } from '../../src/serve/memory-events.js';
import { eventually } from '../helpers/eventually.js';

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

describe('a 2025 session’s events over HTTP', () => {
  it('count toward the process budget while the session lives, and are given back when it is deleted', async () => {
    const handler = createHttpHandler(() => {
      const server = new McpServer({ name: 'big', version: '1' });
      server.registerTool('big', { inputSchema: z.object({}) }, async () => ({
        content: [{ type: 'text', text: 'x'.repeat(100_000) }],
      }));
      return server;
    });
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
    const before = PROCESS_EVENT_BUDGET.used;
    const opened = await post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    await opened.text();
    const session = {
      'mcp-session-id': opened.headers.get('mcp-session-id') ?? '',
      'mcp-protocol-version': '2025-06-18',
    };
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
    const answer = await post(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'big', arguments: {} } },
      session,
    );
    expect(await answer.text()).toContain('x'.repeat(1000));
    expect(PROCESS_EVENT_BUDGET.used - before).toBeGreaterThan(100_000);
    const deleted = await handler.request('/mcp', { method: 'DELETE', headers: session });
    expect(deleted.status).toBe(200);
    await eventually(() => (PROCESS_EVENT_BUDGET.used === before ? true : undefined));
  });
});
