import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { MemoryEventStore } from '../../src/serve/memory-events.js';

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

  it('keeps about 2 MB of a session’s events (the latest always): older large ones are gone', async () => {
    const store = new MemoryEventStore();
    const priming = await store.storeEvent('a', {} as JSONRPCMessage);
    const mb = (n: number) => log(`${n}`.repeat(1024 * 1024));
    for (const n of [1, 2, 3]) await store.storeEvent('a', mb(n));
    expect((await replay(store, priming)).sent).toEqual([['a/4', '33333']]);
    const huge = await store.storeEvent('a', log('4'.repeat(3 * 1024 * 1024)));
    expect(huge).toBe('a/5');
    expect((await replay(store, priming)).sent).toEqual([['a/5', '44444']]);
  });
});
