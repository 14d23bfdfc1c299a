import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayOptions } from '../../src/gateway/index.js';
import { createHttpHandler } from '../../src/serve/index.js';
import { connectInProcess, eventually, startGateway, textOf } from '../helpers/gateway.js';
import { answerTwoQuestions, asked, modernCall, registerTwoQuestions } from '../helpers/modern-call.js';
import { fixture } from '../helpers/servers.js';

// A 2026-07-28 client (raw frames over the gateway's HTTP endpoint, in-process) calling tools of a real 2025
// upstream (the SDK v1, a subprocess) that asks its client things mid-call.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function gatewayBefore(options: Partial<GatewayOptions> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'mcpkit-generations-'));
  const markFile = join(dir, 'marks');
  const started = await startGateway(
    [
      {
        name: 'v1',
        entry: {
          command: process.execPath,
          args: [fixture('servers/v1-asking-server.mjs')],
          env: { MARK_FILE: markFile },
        },
      },
    ],
    options,
  );
  const http = createHttpHandler(started.gateway.factory, { intercept: started.gateway.intercept() });
  cleanups.push(async () => {
    await http.close();
    await started.close();
    await rm(dir, { recursive: true, force: true });
  });
  const marks = async () => (await readFile(markFile, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return { http, marks };
}

const call = modernCall;

describe('gateway: a 2026-07-28 client, a 2025 upstream that asks mid-call', () => {
  it('turns each request into an input_required round, and returns the result after the last one', async () => {
    const { http } = await gatewayBefore();
    const first = await call(http, 'v1__interview');
    expect(first.result?.resultType).toBe('input_required');
    expect(asked(first)).toEqual({ elicitation_1: 'elicitation/create' });
    expect(first.result?.inputRequests?.elicitation_1?.params.message).toBe('What is your name?');
    const second = await call(http, 'v1__interview', {
      inputResponses: { elicitation_1: { action: 'accept', content: { name: 'Ada' } } },
      requestState: first.result?.requestState,
    });
    expect(asked(second)).toEqual({ sampling_2: 'sampling/createMessage' });
    const third = await call(http, 'v1__interview', {
      inputResponses: {
        sampling_2: {
          role: 'assistant',
          content: { type: 'text', text: 'Hello, Ada' },
          model: 'test',
          stopReason: 'endTurn',
        },
      },
      requestState: second.result?.requestState,
    });
    expect(asked(third)).toEqual({ roots_3: 'roots/list' });
    const done = await call(http, 'v1__interview', {
      inputResponses: { roots_3: { roots: [{ uri: 'file:///work', name: 'work' }] } },
      requestState: third.result?.requestState,
    });
    expect(done.error).toBeUndefined();
    expect(done.result?.resultType).toBe('complete');
    expect(done.result?.content?.[0]?.text).toBe('accept:Ada | Hello, Ada | file:///work');
  });

  it("refuses an upstream's request while calls of two clients are in progress (it cannot say which it serves)", async () => {
    const { http } = await gatewayBefore();
    const first = await call(http, 'v1__interview');
    expect(asked(first)).toEqual({ elicitation_1: 'elicitation/create' });
    // A second client's call asks too, while the first still waits for its answer: the question is not routed by
    // guess (it could show one client the other's), the upstream hears a refusal.
    const second = await call(http, 'v1__interview');
    expect(second.result?.resultType).not.toBe('input_required');
    expect(JSON.stringify(second)).toContain('calls of several clients are in progress on \\"v1\\"');
    // The first call goes on as if alone.
    const next = await call(http, 'v1__interview', {
      inputResponses: { elicitation_1: { action: 'accept', content: { name: 'Ada' } } },
      requestState: first.result?.requestState,
    });
    expect(asked(next)).toEqual({ sampling_2: 'sampling/createMessage' });
  });

  it('puts requests sent together into one round, and asks again when the answers are missing', async () => {
    const { http } = await gatewayBefore();
    const first = await call(http, 'v1__together');
    expect(asked(first)).toEqual({
      elicitation_1: 'elicitation/create',
      sampling_2: 'sampling/createMessage',
    });
    const again = await call(http, 'v1__together', {
      inputResponses: { unrelated: { action: 'decline' } },
      requestState: first.result?.requestState,
    });
    expect(asked(again)).toEqual(asked(first));
    const done = await call(http, 'v1__together', {
      inputResponses: {
        elicitation_1: { action: 'accept', content: { name: 'Bo' } },
        sampling_2: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' },
      },
      requestState: again.result?.requestState,
    });
    expect(done.result?.content?.[0]?.text).toBe('Bo / hi');
  });

  it('refuses a tampered state, an old round’s state and another tool’s, with -32602', async () => {
    const { http } = await gatewayBefore();
    const first = await call(http, 'v1__interview');
    const state = first.result?.requestState as string;
    const answer = { elicitation_1: { action: 'accept', content: { name: 'Cy' } } };
    const tampered = await call(http, 'v1__interview', { inputResponses: answer, requestState: `${state}x` });
    expect(tampered.error).toEqual({ code: -32602, message: 'Invalid or expired requestState' });
    const forged = `${state.split('.')[0]}.0.${'A'.repeat(43)}`;
    expect(
      (await call(http, 'v1__interview', { inputResponses: answer, requestState: forged })).error?.code,
    ).toBe(-32602);
    const elsewhere = await call(http, 'v1__together', { inputResponses: answer, requestState: state });
    expect(elsewhere.error?.code).toBe(-32602);
    // The real state still works, once; after that round it is an old round's.
    const second = await call(http, 'v1__interview', { inputResponses: answer, requestState: state });
    expect(asked(second)).toEqual({ sampling_2: 'sampling/createMessage' });
    const replayed = await call(http, 'v1__interview', { inputResponses: answer, requestState: state });
    expect(replayed.error?.code).toBe(-32602);
  });

  it('refuses what the client did not declare: the upstream gets the refusal, the client the result', async () => {
    const { http } = await gatewayBefore();
    const answer = await call(http, 'v1__interview', {}, { capabilities: { sampling: {} } });
    expect(answer.error).toBeUndefined();
    expect(answer.result?.resultType).toBe('complete');
    expect(JSON.stringify(answer.result?.content)).toContain('the client does not support elicitation');
  });

  it('cancels the upstream call when the client goes away mid-round', async () => {
    const { http, marks } = await gatewayBefore();
    const first = await call(http, 'v1__wait_for_answer');
    expect(asked(first)).toEqual({ elicitation_1: 'elicitation/create' });
    const controller = new AbortController();
    const retry = call(
      http,
      'v1__wait_for_answer',
      {
        inputResponses: { elicitation_1: { action: 'accept', content: { name: 'Eve' } } },
        requestState: first.result?.requestState,
      },
      { signal: controller.signal },
    ).catch((error: unknown) => error);
    await eventually(async () => ((await marks()).includes('answered Eve') ? true : undefined));
    controller.abort();
    await retry;
    await eventually(async () => ((await marks()).includes('cancelled') ? true : undefined));
  });

  it('cancels the upstream call when the client does not come back in time', async () => {
    const { http, marks } = await gatewayBefore({ inputRoundTimeoutMs: 300 });
    const first = await call(http, 'v1__wait_for_answer');
    expect(asked(first)).toEqual({ elicitation_1: 'elicitation/create' });
    await eventually(async () => ((await marks()).includes('cancelled') ? true : undefined));
    const late = await call(http, 'v1__wait_for_answer', {
      inputResponses: { elicitation_1: { action: 'accept', content: { name: 'Di' } } },
      requestState: first.result?.requestState,
    });
    expect(late.error).toEqual({ code: -32602, message: 'Invalid or expired requestState' });
  });
});

describe('gateway: a 2025 client, a 2026-07-28 upstream that answers input_required', () => {
  it('asks the client each round with a real request, and retries upstream with the answers', async () => {
    const upstream = {
      name: 'modern',
      entry: { command: 'in-process' },
      transport: () => {
        const [client, server] = InMemoryTransport.createLinkedPair();
        serveStdio(
          () => {
            const instance = new McpServer({ name: 'modern', version: '1' });
            registerTwoQuestions(instance);
            return instance;
          },
          { transport: server },
        );
        return client;
      },
    };
    const started = await startGateway([upstream]);
    cleanups.push(started.close);
    const client = await connectInProcess(started.gateway, { capabilities: { elicitation: {} } });
    cleanups.push(client.close);
    const asked = answerTwoQuestions(client.client);
    const result = await client.client.callTool({ name: 'modern__two_questions', arguments: {} });
    expect(textOf(result)).toBe('Flo likes teal');
    expect(asked).toEqual(['Name?', 'Color?']);
  });
});

describe('gateway: a 2026-07-28 stdio upstream that leaves resultType out of complete results', () => {
  it('reads its results as complete, for a 2025 client and a 2026-07-28 one, and sends resultType on', async () => {
    const started = await startGateway([
      {
        name: 'omits',
        entry: { command: process.execPath, args: [fixture('servers/omits-result-type-server.mjs')] },
      },
    ]);
    const http = createHttpHandler(started.gateway.factory, { intercept: started.gateway.intercept() });
    cleanups.push(started.close, () => http.close());
    const legacy = await connectInProcess(started.gateway);
    cleanups.push(legacy.close);
    expect(await legacy.client.callTool({ name: 'omits__echo', arguments: { text: 'old' } })).toEqual({
      content: [{ type: 'text', text: 'echo: old' }],
    });
    const modern = await call(http, 'omits__echo', { arguments: { text: 'new' } });
    expect(modern.error).toBeUndefined();
    expect(modern.result?.resultType).toBe('complete');
    expect(modern.result?.content).toEqual([{ type: 'text', text: 'echo: new' }]);
  });
});
