import { afterAll, describe, expect, it } from 'vitest';
import { createHttpHandler, type HttpHandler } from '../../src/serve/index.js';
import { startGateway, toolServer } from '../helpers/gateway.js';
import { modernResponse } from '../helpers/modern-call.js';
import { fuzzFrames, fuzzHttp } from './frame-fuzz.js';

// Issue 34: "at the 2026 wire, 15 of 108 identical tools/list requests to the gateway answered a list
// different from the first". The list is a function of the catalog and of what tool_search revealed to
// the asking client (deferred mode only) — nothing else: fuzzed traffic around it changes nothing, and a
// reveal changes only its own client's list (docs/gateway.md, "What tools/list shows").

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function gatewayHandler(deferThreshold?: number): Promise<HttpHandler> {
  const tools = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`tool${i}`, `Tool number ${i}.`]));
  const started = await startGateway(
    [toolServer('lib', tools), toolServer('aux', { echo: 'Echoes.', read: 'Reads a file.' })],
    deferThreshold === undefined ? {} : { deferThreshold },
  );
  const handler = createHttpHandler(started.gateway.factory, { intercept: started.gateway.intercept() });
  cleanups.push(started.close, () => handler.close());
  return handler;
}

async function listed(handler: HttpHandler, client: string): Promise<string[]> {
  const response = await modernResponse(handler, 'tools/list', {}, { capabilities: {}, client });
  const body = (await response.json()) as { result?: { tools: { name: string }[] } };
  if (!body.result) throw new Error(`tools/list failed: ${JSON.stringify(body)}`);
  return body.result.tools.map((t) => t.name);
}

describe.concurrent('the gateway’s tools/list at the 2026-07-28 wire', () => {
  it('answers 108 identical requests with one list while fuzzed frames hit the same gateway', async () => {
    const handler = await gatewayHandler();
    const fuzz = fuzzHttp(
      (url, init) => handler.request(url, init),
      'http://127.0.0.1/mcp',
      fuzzFrames(34, 300, ['lib__tool1', 'aux__echo', 'tool_search']),
    );
    const lists = await Promise.all(Array.from({ length: 108 }, () => listed(handler, 'agent')));
    await fuzz;
    const first = lists[0] ?? [];
    expect(first).toHaveLength(14);
    expect(lists.filter((list) => JSON.stringify(list) !== JSON.stringify(first))).toEqual([]);
  });

  it('deferred: a tool_search changes the searching client’s list only, and on purpose', async () => {
    const handler = await gatewayHandler(5);
    const before = await listed(handler, 'agent');
    expect(before).toEqual(['tool_search', 'call_tool']);
    const search = await modernResponse(
      handler,
      'tools/call',
      { name: 'tool_search', arguments: { query: 'echoes', limit: 1 } },
      { capabilities: {}, client: 'other' },
    );
    expect(search.status).toBe(200);
    await search.text();
    expect(await listed(handler, 'agent')).toEqual(before);
    expect(await listed(handler, 'other')).toEqual(['tool_search', 'call_tool', 'aux__echo']);
    const again = await Promise.all(Array.from({ length: 20 }, () => listed(handler, 'other')));
    expect(new Set(again.map((list) => list.join(',')))).toEqual(
      new Set(['tool_search,call_tool,aux__echo']),
    );
  });
});
