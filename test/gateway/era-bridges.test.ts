import {
  Client,
  InMemoryTransport,
  type JSONRPCMessage,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { McpServer as V1McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer, MissingRequiredClientCapabilityError, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { describe, expect, it, onTestFinished } from 'vitest';
import * as z from 'zod';
import type { RuntimeServerConfig } from '../../src/client/index.js';
import { createHttpHandler, serveOverHttp } from '../../src/serve/index.js';
import { clientOf, eventually, gatewayOf, inProcessUpstream } from '../helpers/gateway.js';
import { MODERN, modernResponse } from '../helpers/modern-call.js';

// What the gateway bridges between a 2025 client and an upstream of the other era (issue 29), in-process.

/**
 * An in-process upstream that speaks 2026-07-28 (serveStdio's era decision over the in-memory pair); `sent`
 * records what the gateway sends it.
 */
function modernUpstream(
  name: string,
  build: () => McpServer,
  sent: JSONRPCMessage[] = [],
): RuntimeServerConfig {
  return {
    name,
    entry: { command: 'in-process' },
    transport: () => {
      const [client, server] = InMemoryTransport.createLinkedPair();
      serveStdio(build, { transport: server });
      const send = client.send.bind(client);
      client.send = (message, options) => {
        sent.push(message);
        return send(message, options);
      };
      return client;
    },
  };
}

/** A 2026-07-28 upstream with two text resources, `note://a` and `note://b`; `subscribe` as declared. */
function notes(subscribe: boolean) {
  let live: McpServer | undefined;
  const sent: JSONRPCMessage[] = [];
  const config = modernUpstream(
    'notes',
    () => {
      live = new McpServer(
        { name: 'notes', version: '1' },
        { capabilities: { resources: subscribe ? { subscribe: true } : {} } },
      );
      for (const key of ['a', 'b'])
        live.registerResource(key, `note://${key}`, {}, async (uri) => ({
          contents: [{ uri: uri.href, text: `note ${key}` }],
        }));
      return live;
    },
    sent,
  );
  return { config, sent, changed: (uri: string) => live?.server.sendResourceUpdated({ uri }) };
}

const updates = (client: { notifications: { method: string; params?: unknown }[] }) =>
  client.notifications
    .filter((n) => n.method === 'notifications/resources/updated')
    .map((n) => (n.params as { uri: string }).uri);

describe('gateway: a 2025 client subscribed to a 2026-07-28 upstream’s resource', () => {
  it('gets notifications/resources/updated through the upstream’s subscriptions/listen, until it unsubscribes', async () => {
    const upstream = notes(true);
    const { gateway } = await gatewayOf([upstream.config]);
    const client = await clientOf(gateway);
    expect(client.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    await client.client.subscribeResource({ uri: 'note://a' });
    await client.client.subscribeResource({ uri: 'note://b' });
    await upstream.changed('note://a');
    await eventually(() => (updates(client).length === 1 ? true : undefined));
    expect(updates(client)).toEqual(['note://a']);
    await client.client.unsubscribeResource({ uri: 'note://a' });
    await upstream.changed('note://a');
    await upstream.changed('note://b');
    // b's update comes after a's would have (one channel, in order): a's did not come.
    await eventually(() => (updates(client).length === 2 ? true : undefined));
    expect(updates(client)).toEqual(['note://a', 'note://b']);
  });

  it('is offered subscriptions by an upstream that serves resources but does not declare them', async () => {
    const { gateway } = await gatewayOf([notes(false).config]);
    const client = await clientOf(gateway);
    expect(client.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    await expect(client.client.subscribeResource({ uri: 'note://a' })).resolves.toEqual({});
    await expect(client.client.unsubscribeResource({ uri: 'note://a' })).resolves.toEqual({});
  });
});

describe('gateway: completion and missing resources across eras', () => {
  it('answers completion/complete for a prompt of an upstream without completions: no suggestions', async () => {
    const plain = modernUpstream('plain', () => {
      const server = new McpServer({ name: 'plain', version: '1' });
      server.registerPrompt('greet', { argsSchema: z.object({ who: z.string() }) }, ({ who }) => ({
        messages: [{ role: 'user', content: { type: 'text', text: `hi ${who}` } }],
      }));
      return server;
    });
    const { gateway } = await gatewayOf([plain]);
    const client = await clientOf(gateway);
    expect(client.client.getServerCapabilities()?.completions).toEqual({});
    const result = await client.client.complete({
      ref: { type: 'ref/prompt', name: 'plain__greet' },
      argument: { name: 'who', value: 'A' },
    });
    expect(result.completion).toEqual({ values: [], hasMore: false });
  });

  it('names the URI in the data of a 2025 upstream’s “resource not found” (SEP-2164)', async () => {
    const old = inProcessUpstream('old', () => {
      // The SDK v1 says "not found" without naming the URI in the error's data.
      const server = new V1McpServer({ name: 'old', version: '1' });
      server.registerResource('here', 'old://here', {}, async (uri) => ({
        contents: [{ uri: uri.href, text: 'here' }],
      }));
      return server as unknown as McpServer;
    });
    const { gateway } = await gatewayOf([old]);
    const client = await clientOf(gateway);
    const uri = 'old://nowhere';
    await expect(client.client.readResource({ uri })).rejects.toMatchObject({
      code: -32602,
      data: { uri },
    });
  });
});

describe('gateway: a 2026-07-28 client over HTTP', () => {
  it('gets an upstream’s -32021 (a capability it did not declare) with HTTP 400, as the spec says', async () => {
    // A low-level server: McpServer would turn the thrown error into a tool result.
    const upstream = await serveOverHttp(() => {
      const server = new Server({ name: 'needy', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/list', async () => ({
        tools: [{ name: 'needs_sampling', inputSchema: { type: 'object' } }],
      }));
      server.setRequestHandler('tools/call', async () => {
        throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { sampling: {} } });
      });
      return server;
    });
    onTestFinished(() => upstream.close());
    const { gateway } = await gatewayOf([{ name: 'up', entry: { type: 'http', url: upstream.url } }]);
    const http = createHttpHandler(gateway.factory, { intercept: gateway.intercept() });
    onTestFinished(() => http.close());
    const call = { name: 'up__needs_sampling', arguments: {} };
    const response = await modernResponse(http, 'tools/call', call, { capabilities: {} });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } },
    });
  });
});

describe('gateway: a 2026-07-28 client’s own subscriptions/listen over HTTP', () => {
  it('gets the updates of the resources it names, subscribed upstream while its stream is open', async () => {
    const upstream = notes(true);
    const { gateway } = await gatewayOf([upstream.config]);
    const http = createHttpHandler(gateway.factory, { intercept: gateway.intercept(), bus: gateway.events });
    onTestFinished(() => http.close());
    const client = new Client({ name: 'modern', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
      fetch: (url, init) => http.request(String(url), init),
    });
    await client.connect(transport);
    onTestFinished(() => client.close());
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const updated: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (note) => {
      updated.push(note.params.uri);
    });
    const listening = await client.listen({ resourceSubscriptions: ['note://a'] });
    // The upstream subscription is made as the stream opens: an update made before it reaches no one.
    await eventually(async () => {
      await upstream.changed('note://a');
      return updated.length > 0 ? true : undefined;
    });
    expect(new Set(updated)).toEqual(new Set(['note://a']));
    const listens = () => upstream.sent.filter((m) => 'method' in m && m.method === 'subscriptions/listen');
    const opened = listens().find((m) =>
      JSON.stringify(m).includes('"resourceSubscriptions":["note://a"]'),
    ) as { id: string } | undefined;
    expect(opened).toBeDefined();
    await listening.close();
    // Closed, the gateway's upstream stream for that resource is cancelled too.
    await eventually(() =>
      upstream.sent.some(
        (m) =>
          'method' in m &&
          m.method === 'notifications/cancelled' &&
          (m.params as { requestId?: unknown }).requestId === opened?.id,
      )
        ? true
        : undefined,
    );
  });
  it('releases what a listen the SDK refuses at once named, and refuses one naming over 100 resources', async () => {
    const upstream = notes(true);
    const { gateway } = await gatewayOf([upstream.config]);
    const http = createHttpHandler(gateway.factory, { intercept: gateway.intercept(), bus: gateway.events });
    onTestFinished(() => http.close());
    const listen = (notifications: Record<string, unknown>) =>
      modernResponse(http, 'subscriptions/listen', { notifications }, { capabilities: {} });
    const bad = await listen({ toolsListChanged: 'not-a-boolean', resourceSubscriptions: ['note://a'] });
    expect(((await bad.json()) as { error?: { code: number } }).error?.code).toBe(-32602);
    // Subscribed upstream as the request came, then cancelled once its answer was over.
    const opened = () =>
      upstream.sent.filter(
        (m) => 'method' in m && m.method === 'subscriptions/listen' && JSON.stringify(m).includes('note://a'),
      ) as { id: string }[];
    await eventually(() => (opened().length > 0 ? true : undefined));
    await eventually(() =>
      upstream.sent.some(
        (m) =>
          'method' in m &&
          m.method === 'notifications/cancelled' &&
          (m.params as { requestId?: unknown }).requestId === opened()[0]?.id,
      )
        ? true
        : undefined,
    );
    const many = Array.from({ length: 101 }, (_, i) => `note://junk-${i}`);
    const refused = await listen({ resourceSubscriptions: many });
    expect(await refused.json()).toMatchObject({
      error: {
        code: -32602,
        message:
          'subscriptions/listen names 101 resources in params.notifications.resourceSubscriptions; the gateway follows at most 100 a stream: open several streams',
      },
    });
    expect(upstream.sent.some((m) => JSON.stringify(m).includes('note://junk-'))).toBe(false);
  });
});
