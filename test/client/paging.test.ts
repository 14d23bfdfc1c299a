import { Server } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/client/index.js';
import { ScriptedTransport } from './scripted-transport.js';

// Lists come in pages: the Runtime follows `nextCursor` to the end. Servers built on the low-level SDK
// server, in-process, answering only what they implement.
let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

/** Serves `items` two per page; the cursor is the index of the next page's first item. */
function page<T>(items: T[], cursor: string | undefined): { items: T[]; nextCursor?: string } {
  const from = cursor === undefined ? 0 : Number(cursor);
  const next = from + 2;
  return { items: items.slice(from, next), ...(next < items.length ? { nextCursor: String(next) } : {}) };
}

function pagedServer(): Server {
  const server = new Server(
    { name: 'paged', version: '1.0.0' },
    { capabilities: { tools: {}, resources: {}, prompts: {} } },
  );
  const tools = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name, inputSchema: { type: 'object' as const } }));
  const resources = ['1', '2', '3'].map((n) => ({ uri: `mem://${n}`, name: `r${n}` }));
  const prompts = ['p1', 'p2'].map((name) => ({ name }));
  server.setRequestHandler('tools/list', async (request) => {
    const { items, nextCursor } = page(tools, request.params?.cursor);
    return { tools: items, ...(nextCursor ? { nextCursor } : {}) };
  });
  server.setRequestHandler('resources/list', async (request) => {
    const { items, nextCursor } = page(resources, request.params?.cursor);
    return { resources: items, ...(nextCursor ? { nextCursor } : {}) };
  });
  server.setRequestHandler('prompts/list', async (request) => {
    const { items, nextCursor } = page(prompts, request.params?.cursor);
    return { prompts: items, ...(nextCursor ? { nextCursor } : {}) };
  });
  // No resources/templates/list: the SDK answers -32601, as many simple servers do.
  return server;
}

describe('Runtime lists (in-process)', () => {
  it('follows every page of tools, resources and prompts', async () => {
    runtime = await Runtime.create({
      servers: [
        {
          name: 'paged',
          entry: { command: 'in-process' },
          transport: () => new ScriptedTransport(pagedServer()),
        },
      ],
    });
    const handle = runtime.server('paged');
    expect((await handle.listTools()).map((t) => t.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect((await handle.listResources()).map((r) => r.uri)).toEqual(['mem://1', 'mem://2', 'mem://3']);
    expect((await handle.listPrompts()).map((p) => p.name)).toEqual(['p1', 'p2']);
  });

  it('takes "method not found" for resources/templates/list as no templates', async () => {
    runtime = await Runtime.create({
      servers: [
        {
          name: 'paged',
          entry: { command: 'in-process' },
          transport: () => new ScriptedTransport(pagedServer()),
        },
      ],
    });
    expect(await runtime.server('paged').listResourceTemplates()).toEqual([]);
  });
});
