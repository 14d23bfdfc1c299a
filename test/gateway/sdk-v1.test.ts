import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeServerConfig } from '../../src/client/index.js';
import { type HttpServerHandle, serveOverHttp } from '../../src/serve/index.js';
import { eventually, startGateway, textOf } from '../helpers/gateway.js';
import { fixture, startUrlPrintingServer } from '../helpers/servers.js';

// The SDK v1 (what most servers and clients in the field run) on both sides of the gateway, at the 2025 wire:
// a v1 server as the upstream (over stdio, and over Streamable HTTP on 127.0.0.1), a v1 client talking to the
// gateway over Streamable HTTP on 127.0.0.1. Everything a client meets: tools, resources, templates, prompts,
// questions asked mid-call, progress, cancellation.

/** A v1 client connected to the gateway, answering elicitation with `name` and sampling with `Hello, <name>`. */
interface V1Client {
  client: Client;
  /** What its handlers were asked, in order. */
  asked: string[];
  /** The protocol version it and the gateway agreed on. */
  protocolVersion: string | undefined;
}

async function v1Client(url: string, name: string): Promise<V1Client> {
  const client = new Client(
    { name: 'v1-client', version: '1.0.0' },
    { capabilities: { elicitation: {}, sampling: {} } },
  );
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(`elicitation: ${request.params.message}`);
    return { action: 'accept', content: { name } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const first = request.params.messages[0]?.content;
    const text = first && !Array.isArray(first) && first.type === 'text' ? first.text : '?';
    asked.push(`sampling: ${text} (maxTokens ${request.params.maxTokens})`);
    return { role: 'assistant', content: { type: 'text', text: `Hello, ${name}` }, model: 'test-model' };
  });
  const wire = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(wire);
  return { client, asked, protocolVersion: wire.protocolVersion };
}

interface Setup extends V1Client {
  /** Connects one more v1 client (closed with the set-up). */
  another(name: string): Promise<V1Client>;
  close(): Promise<void>;
}

async function v1Upstream(
  transport: 'stdio' | 'http',
): Promise<{ config: RuntimeServerConfig; stop(): void }> {
  const file = 'servers/v1-full-server.mjs';
  if (transport === 'stdio')
    return { config: { name: 'v1', entry: { command: process.execPath, args: [fixture(file)] } }, stop() {} };
  const served = await startUrlPrintingServer(file, 'http');
  return { config: { name: 'v1', entry: { url: served.url } }, stop: served.stop };
}

/** A v1 upstream over `transport` behind an in-process gateway served on 127.0.0.1, and a v1 client (Ada). */
async function setUp(transport: 'stdio' | 'http'): Promise<Setup> {
  const upstream = await v1Upstream(transport);
  const started = await startGateway([upstream.config]);
  let http: HttpServerHandle | undefined;
  const clients: Client[] = [];
  const close = async () => {
    for (const client of clients) await client.close();
    await http?.close();
    await started.close();
    upstream.stop();
  };
  try {
    const served = await serveOverHttp(started.gateway.factory, { intercept: started.gateway.intercept() });
    http = served;
    const another = async (name: string) => {
      const connected = await v1Client(served.url, name);
      clients.push(connected.client);
      return connected;
    };
    return { ...(await another('Ada')), another, close };
  } catch (error) {
    await close();
    throw error;
  }
}

describe.each(['stdio', 'http'] as const)(
  'gateway: an SDK v1 client, an SDK v1 upstream over %s',
  (transport) => {
    let s: Setup;
    beforeAll(async () => {
      s = await setUp(transport);
    });
    afterAll(() => s?.close());

    it('speaks the 2025 wire, lists and calls tools', async () => {
      expect(s.protocolVersion).toBe('2025-11-25');
      const { tools } = await s.client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        'v1__add',
        'v1__ask_name',
        'v1__sample',
        'v1__count',
        'v1__wait_for_cancel',
        'v1__cancellations',
      ]);
      const add = tools.find((t) => t.name === 'v1__add');
      expect(add?.description).toBe('Adds two numbers.');
      expect(add?.inputSchema.required).toEqual(['a', 'b']);
      const result = await s.client.callTool({ name: 'v1__add', arguments: { a: 2, b: 40 } });
      expect(result).toEqual({ content: [{ type: 'text', text: '2 + 40 = 42' }] });
      // The v1 server's own argument check answers through the gateway.
      const wrong = await s.client.callTool({ name: 'v1__add', arguments: { a: 'two', b: 40 } });
      expect(wrong.isError).toBe(true);
      expect(textOf(wrong as { content?: unknown })).toContain('Input validation error');
    });

    it('lists and reads resources and resource templates', async () => {
      const { resources } = await s.client.listResources();
      expect(resources).toEqual([
        {
          uri: 'mcpkit://gateway/status',
          name: 'gateway_status',
          description: 'Each upstream server: state, restarts, last error.',
          mimeType: 'application/json',
        },
        { uri: 'v1://readme', name: 'readme', description: 'A static text.', mimeType: 'text/plain' },
      ]);
      expect(await s.client.readResource({ uri: 'v1://readme' })).toEqual({
        contents: [{ uri: 'v1://readme', mimeType: 'text/plain', text: 'v1 readme' }],
      });
      const { resourceTemplates } = await s.client.listResourceTemplates();
      expect(resourceTemplates).toEqual([
        {
          uriTemplate: 'v1://items/{id}',
          name: 'item',
          description: 'An item by id.',
          mimeType: 'text/plain',
        },
      ]);
      expect(await s.client.readResource({ uri: 'v1://items/7' })).toEqual({
        contents: [{ uri: 'v1://items/7', mimeType: 'text/plain', text: 'item 7' }],
      });
    });

    it('lists prompts and gets one with its arguments', async () => {
      const { prompts } = await s.client.listPrompts();
      expect(prompts).toEqual([
        {
          name: 'v1__greet',
          description: 'A greeting.',
          arguments: [
            { name: 'name', required: true },
            { name: 'mood', required: false },
          ],
        },
      ]);
      const prompt = await s.client.getPrompt({
        name: 'v1__greet',
        arguments: { name: 'Ada', mood: 'warmly' },
      });
      expect(prompt.messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'Greet Ada, warmly.' } },
      ]);
    });

    it("answers the upstream's elicitation and sampling mid-call through the v1 client's handlers", async () => {
      s.asked.length = 0;
      const named = await s.client.callTool({ name: 'v1__ask_name', arguments: {} });
      expect(named).toEqual({ content: [{ type: 'text', text: 'accept:Ada' }] });
      const sampled = await s.client.callTool({ name: 'v1__sample', arguments: { prompt: 'Greet Ada' } });
      expect(sampled).toEqual({ content: [{ type: 'text', text: 'test-model said: Hello, Ada' }] });
      expect(s.asked).toEqual(['elicitation: What is your name?', 'sampling: Greet Ada (maxTokens 50)']);
    });

    it('asks the client whose call it is, with another v1 client connected after it', async () => {
      const bo = await s.another('Bo');
      s.asked.length = 0;
      expect(await s.client.callTool({ name: 'v1__ask_name', arguments: {} })).toEqual({
        content: [{ type: 'text', text: 'accept:Ada' }],
      });
      expect(await bo.client.callTool({ name: 'v1__sample', arguments: { prompt: 'Hi' } })).toEqual({
        content: [{ type: 'text', text: 'test-model said: Hello, Bo' }],
      });
      expect(s.asked).toEqual(['elicitation: What is your name?']);
      expect(bo.asked).toEqual(['sampling: Hi (maxTokens 50)']);
    });

    it("passes the upstream's progress to the v1 client's onprogress", async () => {
      const progress: Progress[] = [];
      const result = await s.client.callTool({ name: 'v1__count', arguments: { to: 3 } }, undefined, {
        onprogress: (p) => progress.push(p),
      });
      expect(result).toEqual({ content: [{ type: 'text', text: 'counted to 3' }] });
      expect(progress).toEqual([
        { progress: 1, total: 3, message: 'step 1 of 3' },
        { progress: 2, total: 3, message: 'step 2 of 3' },
        { progress: 3, total: 3, message: 'step 3 of 3' },
      ]);
    });

    it('cancels the upstream call when the v1 client aborts, and goes on serving', async () => {
      const seen = async () =>
        textOf(
          (await s.client.callTool({ name: 'v1__cancellations', arguments: {} })) as { content?: unknown },
        );
      const abort = new AbortController();
      const call = s.client.callTool(
        { name: 'v1__wait_for_cancel', arguments: { tag: 'first' } },
        undefined,
        {
          signal: abort.signal,
        },
      );
      await eventually('the upstream call to start', async () =>
        (await seen()) === 'first started' ? true : undefined,
      );
      abort.abort('the user stopped it');
      await expect(call).rejects.toThrow('the user stopped it');
      await eventually('the upstream to see the abort', async () =>
        (await seen()) === 'first started\nfirst aborted' ? true : undefined,
      );
      expect(await s.client.callTool({ name: 'v1__add', arguments: { a: 1, b: 1 } })).toEqual({
        content: [{ type: 'text', text: '1 + 1 = 2' }],
      });
    });
  },
);
