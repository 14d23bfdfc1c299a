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

  // An upstream process on the raw relay that answers input_required, and a 2025 client that answers it.
  async function inputRequiredUpstream() {
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
    client = await connectInProcess(started.gateway, { capabilities: { elicitation: {} } });
    const frames: JSONRPCMessage[] = [];
    const reply = async (m: JSONRPCMessage) => void frames.push(m);
    const read = () => {
      try {
        return readFileSync(marks, 'utf8');
      } catch {
        return '';
      }
    };
    return { intercept: started.gateway.intercept(), frames, reply, read };
  }

  it('a cancel after an input_required round reaches the upstream’s retry, and the call gets no answer', async () => {
    const { intercept, frames, reply, read } = await inputRequiredUpstream();
    client?.client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { name: 'Ada' },
    }));
    expect(
      intercept(frame({ id: 7, method: 'tools/call', params: { name: 'ir__needs-input' } }), reply),
    ).toBe(true);
    // The gateway asked the client, and called again with its answer (on the relay: a string id).
    const retryId = await eventually(() => /call string (\S+) Ada/.exec(read())?.[1], 10_000);
    expect(read().match(/^call /gm)).toHaveLength(2);
    const cancelled = intercept(
      frame({ method: 'notifications/cancelled', params: { requestId: 7, reason: 'user stopped it' } }),
      reply,
    );
    expect(cancelled).toBe(true);
    await eventually(() => (read().includes(`cancelled ${retryId}\n`) ? true : undefined), 10_000);
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

  it('a cancel while the client is being asked withdraws the question, and the upstream is not called again', async () => {
    const { intercept, frames, reply, read } = await inputRequiredUpstream();
    let withdrawn: string | undefined;
    client?.client.setRequestHandler(
      'elicitation/create',
      (_request, ctx) =>
        new Promise((_resolve, reject) =>
          ctx.mcpReq.signal.addEventListener('abort', () => {
            withdrawn = String(ctx.mcpReq.signal.reason);
            reject(new Error('withdrawn'));
          }),
        ),
    );
    intercept(frame({ id: 9, method: 'tools/call', params: { name: 'ir__needs-input' } }), reply);
    await eventually(() => (read().includes('call string') ? true : undefined), 10_000);
    intercept(frame({ method: 'notifications/cancelled', params: { requestId: 9 } }), reply);
    await eventually('the question withdrawn', () => withdrawn, 10_000);
    expect(read().match(/^call /gm)).toHaveLength(1);
    expect(frames).toEqual([]);
  });
});
