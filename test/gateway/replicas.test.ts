import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisPins, revealedOverRedis } from '../../src/gateway/index.js';
import { createHttpHandler, type HttpHandler, RedisState, SessionSeal } from '../../src/serve/index.js';
import { missingEngines } from '../helpers/engines.js';
import { test } from '../helpers/fixtures.js';
import { eventually, startGateway, toolServer } from '../helpers/gateway.js';
import type { RedisServer } from '../helpers/redis.js';

// Two gateway replicas in-process, as the CLI wires them with --session-key and --state: one Redis, one key,
// nothing else shared. A client whose requests alternate between them sees one gateway.
describe.skipIf(missingEngines('redis'))('gateway replicas sharing Redis', () => {
  let redis: RedisServer;
  const cleanups: (() => Promise<void>)[] = [];
  test.beforeAll(({ redis: server }) => {
    redis = server;
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function replica(seal: SessionSeal): Promise<HttpHandler> {
    const state = await RedisState.connect(redis.url);
    const revealed = revealedOverRedis(state);
    const tools = Object.fromEntries(
      ['alpha', 'beta', 'gamma', 'delta'].map((t) => [`${t}_report`, `Writes the ${t} report.`]),
    );
    const { gateway, close } = await startGateway([toolServer('docs', tools)], {
      deferThreshold: 2,
      pinStore: new RedisPins(state.redis),
      shareRevealed: revealed.publish,
    });
    await revealed.attach(gateway);
    const handler = createHttpHandler(gateway.factory, { shared: { seal, state } });
    cleanups.push(async () => {
      await handler.close();
      await close();
      await state.close();
    });
    return handler;
  }

  it('what tool_search found in a session on one replica is listed on the other', async () => {
    const seal = new SessionSeal('r'.repeat(40));
    const replicas = [await replica(seal), await replica(seal)];
    let turn = 0;
    // Round robin, as a balancer with no affinity does.
    const fetch = (input: string | URL | Request, init?: RequestInit) =>
      (replicas[turn++ % 2] as HttpHandler).request(input instanceof Request ? input : String(input), init);
    const client = new Client({ name: 'rr', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), { fetch }));
    cleanups.push(() => client.close());
    const names = async () => (await client.listTools()).tools.map((t) => t.name).sort();
    expect(await names()).toEqual(['call_tool', 'tool_search']);
    await client.callTool({ name: 'tool_search', arguments: { query: 'gamma report', limit: 1 } });
    // Both replicas answer tools/list in turn: each must show the find.
    for (let i = 0; i < 2; i++)
      await eventually(async () => ((await names()).includes('docs__gamma_report') ? true : undefined));
    expect(await names()).toEqual(['call_tool', 'docs__gamma_report', 'tool_search']);
    expect(await names()).toEqual(['call_tool', 'docs__gamma_report', 'tool_search']);
  });
});
