import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  connectInProcess,
  eventually,
  type InProcessClient,
  startGateway,
  toolServer,
} from '../helpers/gateway.js';
import { fixture } from '../helpers/servers.js';

let stop: (() => Promise<void>) | undefined;
let client: InProcessClient | undefined;
afterEach(async () => {
  await client?.close();
  await stop?.();
  client = undefined;
  stop = undefined;
});

const frame = (message: object) => ({ jsonrpc: '2.0', ...message }) as JSONRPCMessage;

describe('gateway fast path (frames in, frames out)', () => {
  it('answers a plain call of a listed tool with the upstream result, for the stdio client', async () => {
    const started = await startGateway([toolServer('a', { ping: 'Answers.' })]);
    stop = started.close;
    client = await connectInProcess(started.gateway);
    const intercept = started.gateway.intercept();
    const frames: JSONRPCMessage[] = [];
    const taken = intercept(
      frame({ id: 1, method: 'tools/call', params: { name: 'a__ping', arguments: { x: 1 } } }),
      async (m) => void frames.push(m),
    );
    expect(taken).toBe(true);
    await eventually(() => (frames.length > 0 ? true : undefined), 5000);
    expect(frames).toEqual([
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'a:ping {"x":1}' }] } },
    ]);
    // Meta tools and unknown names are left to the SDK path.
    expect(intercept(frame({ id: 2, method: 'tools/call', params: { name: 'nope' } }), async () => {})).toBe(
      false,
    );
  });

  // The raw relay exists only for stdio upstreams: this upstream is a process.
  it('a cancel after the input_required fallback reaches the upstream and the call gets no answer', async () => {
    const started = await startGateway([]);
    stop = started.close;
    const marks = join(started.dir, 'marks');
    await started.gateway.reconcile([
      {
        name: 'ir',
        entry: {
          command: process.execPath,
          args: [fixture('servers/input-required-server.mjs')],
          env: { MARK_FILE: marks },
        },
      },
    ]);
    await eventually(async () => ((await started.gateway.catalog()).tools.length === 2 ? true : undefined));
    client = await connectInProcess(started.gateway);
    const intercept = started.gateway.intercept();
    const frames: JSONRPCMessage[] = [];
    const reply = async (m: JSONRPCMessage) => void frames.push(m);
    const read = () => {
      try {
        return readFileSync(marks, 'utf8');
      } catch {
        return '';
      }
    };
    expect(
      intercept(frame({ id: 7, method: 'tools/call', params: { name: 'ir__needs-input' } }), reply),
    ).toBe(true);
    // The relayed call came back input_required; the SDK client's call (a numeric id) is now in flight.
    const sdkId = await eventually(() => /call number (\d+)/.exec(read())?.[1], 10_000);
    const cancelled = intercept(
      frame({ method: 'notifications/cancelled', params: { requestId: 7, reason: 'user stopped it' } }),
      reply,
    );
    expect(cancelled).toBe(true);
    await eventually(() => (read().includes(`cancelled ${sdkId}\n`) ? true : undefined), 10_000);
    // The next call is answered; the cancelled one never is.
    expect(
      intercept(
        frame({ id: 8, method: 'tools/call', params: { name: 'ir__echo', arguments: { text: 'hi' } } }),
        reply,
      ),
    ).toBe(true);
    await eventually(() => (frames.some((f) => (f as { id?: unknown }).id === 8) ? true : undefined), 10_000);
    expect(frames.map((f) => (f as { id?: unknown }).id)).toEqual([8]);
  });
});
