import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/client/index.js';
import { listenLinesAsEvents } from '../../src/client/listen-lines.js';
import { eventually } from '../helpers/eventually.js';
import { type Running, startReference } from '../helpers/reference.js';

// The conformance suite's own reference server answers `subscriptions/listen` with `application/json`
// lines (chunked), not the SSE stream the transport specifies: the SDK client alone never sees its
// acknowledgement, so list changes were lost (issue 29, `server-stateless` through the gateway).
describe('a 2026-07-28 server whose subscriptions/listen stream is JSON lines', () => {
  let reference: Running;
  beforeAll(async () => {
    reference = await startReference();
  }, 300_000);
  afterAll(() => reference?.stop());

  it('delivers its list changes to the Runtime as they come', async () => {
    const runtime = await Runtime.create({
      servers: [{ name: 'ref', entry: { type: 'http', url: reference.url } }],
    });
    try {
      const changes: string[] = [];
      runtime.on('list_changed', ({ list }) => changes.push(list));
      const ref = runtime.server('ref');
      expect(ref.protocolVersion).toBe('2026-07-28');
      // The stream is open once the server has acknowledged it: a change made before that reaches no one.
      await eventually(async () => {
        await ref.callTool('test_trigger_tool_change', {});
        return changes.includes('tools') ? true : undefined;
      });
      expect(changes).toContain('tools');
    } finally {
      await runtime.close();
    }
  });
});

describe('a JSON-lines listen stream that abuses the framing', () => {
  it('drops a line over the cap as it comes (no newline for 20 MB) and goes on with the next', async () => {
    const big = 'x'.repeat(1024 * 1024);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const encoder = new TextEncoder();
        if (sent === 0) controller.enqueue(encoder.encode('{"jsonrpc":"2.0","method":"a"}\n{"jsonrpc":'));
        else if (sent <= 20) controller.enqueue(encoder.encode(big));
        else {
          controller.enqueue(encoder.encode('\n{"jsonrpc":"2.0","method":"b"}\n'));
          controller.close();
        }
        sent++;
      },
    });
    const fetch = listenLinesAsEvents(
      async () => new Response(body, { headers: { 'content-type': 'application/json' } }),
    );
    const response = await fetch('http://127.0.0.1/mcp', {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: {} }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe(
      'event: message\ndata: {"jsonrpc":"2.0","method":"a"}\n\nevent: message\ndata: {"jsonrpc":"2.0","method":"b"}\n\n',
    );
  });
});
