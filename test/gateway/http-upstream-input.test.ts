import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it, onTestFinished } from 'vitest';
import * as z from 'zod';
import { createHttpHandler, serveOverHttp } from '../../src/serve/index.js';
import { clientOf, eventually, gatewayOf, textOf } from '../helpers/gateway.js';
import { answerTwoQuestions, asked, modernCall, registerTwoQuestions } from '../helpers/modern-call.js';

// A 2026-07-28 upstream over real Streamable HTTP (the SDK v2 server on 127.0.0.1, port 0), behind the gateway:
// its `input_required` results reach a 2026-07-28 client as they are and are answered by a 2025 client
// through real requests; a cancelled call stops the upstream's. The upstream counts the calls it gets.

async function modernUpstream() {
  const seen = { calls: 0, aborted: 0 };
  const http = await serveOverHttp(() => {
    const server = new McpServer({ name: 'modern-http', version: '1' });
    registerTwoQuestions(server, () => seen.calls++);
    server.registerTool('hang', { inputSchema: z.object({}) }, async (_args, ctx) => {
      seen.calls++;
      await new Promise<void>((resolve) => ctx.mcpReq.signal.addEventListener('abort', () => resolve()));
      seen.aborted++;
      return { content: [{ type: 'text', text: 'stopped' }] };
    });
    return server;
  });
  onTestFinished(() => http.close());
  const started = await gatewayOf([{ name: 'up', entry: { type: 'http', url: http.url } }]);
  const gateway = createHttpHandler(started.gateway.factory, { intercept: started.gateway.intercept() });
  onTestFinished(() => gateway.close());
  return { seen, started, gateway };
}

describe('gateway: a 2026-07-28 upstream over HTTP that answers input_required', () => {
  it('hands its rounds to a 2026-07-28 client as they are, and its retries back', async () => {
    const { seen, gateway } = await modernUpstream();
    const first = await modernCall(gateway, 'up__two_questions');
    expect(first.result?.resultType).toBe('input_required');
    expect(asked(first)).toEqual({ name: 'elicitation/create' });
    const second = await modernCall(gateway, 'up__two_questions', {
      inputResponses: { name: { action: 'accept', content: { name: 'Flo' } } },
    });
    expect(asked(second)).toEqual({ color: 'elicitation/create' });
    const done = await modernCall(gateway, 'up__two_questions', {
      inputResponses: { color: { action: 'accept', content: { color: 'teal' } } },
      requestState: second.result?.requestState,
    });
    expect(done.error).toBeUndefined();
    expect(done.result?.content?.[0]?.text).toBe('Flo likes teal');
    expect(seen.calls).toBe(3);
  });

  it('asks a 2025 client each round with a real request and retries with its answers, calling the upstream once per round', async () => {
    const { seen, started } = await modernUpstream();
    const client = await clientOf(started.gateway, { capabilities: { elicitation: {} } });
    const questions = answerTwoQuestions(client.client);
    const result = await client.client.callTool({ name: 'up__two_questions', arguments: {} });
    expect(textOf(result)).toBe('Flo likes teal');
    expect(questions).toEqual(['Name?', 'Color?']);
    // Three rounds, three upstream calls: no call is made again from the start.
    expect(seen.calls).toBe(3);
  });

  it('refuses a round to a 2025 client that cannot answer it, with the reason', async () => {
    const { seen, started } = await modernUpstream();
    const client = await clientOf(started.gateway);
    const error = await client.client
      .callTool({ name: 'up__two_questions', arguments: {} })
      .catch((e: Error) => e);
    expect(String((error as Error).message)).toContain('the client does not support elicitation; refused');
    expect(seen.calls).toBe(1);
  });

  it('stops the upstream call when a 2026-07-28 client goes away, and when a 2025 client cancels', async () => {
    const { seen, gateway, started } = await modernUpstream();
    const controller = new AbortController();
    const dropped = modernCall(gateway, 'up__hang', {}, { signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    await eventually('the upstream got the call', () => (seen.calls === 1 ? true : undefined));
    controller.abort();
    await dropped;
    await eventually('the upstream saw its call cancelled', () => (seen.aborted === 1 ? true : undefined));

    const client = await clientOf(started.gateway);
    const cancel = new AbortController();
    const call = client.client
      .callTool({ name: 'up__hang', arguments: {} }, { signal: cancel.signal })
      .catch((e: Error) => e);
    await eventually('the upstream got the second call', () => (seen.calls === 2 ? true : undefined));
    cancel.abort('no longer needed');
    await call;
    await eventually('the upstream saw the second call cancelled', () =>
      seen.aborted === 2 ? true : undefined,
    );
  });
});
