import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProgressUpdate, Runtime } from '../../src/client/index.js';
import { CLI, createWorkspace, type Workspace } from '../helpers/cli.js';
import {
  connectGateway,
  eventually,
  type GatewayClient,
  textOf,
  upstream,
  writeProjectConfig,
} from '../helpers/gateway.js';
import { alive, everything, filesystem, fixture, memory } from '../helpers/servers.js';

let ws: Workspace;
let gw: GatewayClient;
let files: string;
let marks: string;
const servers = () => ({
  everything,
  memory,
  files: filesystem(files),
  up: upstream('up', { MARK_DIR: marks }),
  // An mcpkit bridge (SDK v2, so a 2026-07-28 upstream).
  bridge: { command: process.execPath, args: [CLI, 'bridge', fixture('bridge/contract.yaml')] },
});

beforeAll(async () => {
  ws = await createWorkspace();
  files = join(ws.root, 'files');
  marks = join(ws.root, 'marks');
  mkdirSync(files);
  mkdirSync(marks);
  writeFileSync(join(files, 'note.txt'), 'hello from a file');
  await writeProjectConfig(ws, servers());
  gw = await connectGateway(ws, ['--defer-threshold', '1000'], {
    capabilities: { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } },
  });
  gw.client.setRequestHandler('elicitation/create', async (request) => ({
    action: 'accept',
    content: { name: `Ada (asked: ${request.params.message})` },
  }));
  gw.client.setRequestHandler('sampling/createMessage', async () => ({
    role: 'assistant',
    content: { type: 'text', text: 'four' },
    model: 'test-model',
  }));
  gw.client.setRequestHandler('roots/list', async () => ({
    roots: [{ uri: 'file:///work/root', name: 'work' }],
  }));
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await ws?.cleanup();
});

describe('gateway: one server for many', () => {
  it('lists every upstream tool as <server>__<tool>, with the upstream definitions', async () => {
    // The same client capabilities as the gateway's (server-everything lists more tools with them).
    const direct = await Runtime.create({
      servers: Object.entries(servers()).map(([name, entry]) => ({ name, entry })),
      handlers: {
        sampling: async () => ({ role: 'assistant', content: { type: 'text', text: '' }, model: 'm' }),
        elicitation: async () => ({ action: 'decline' }),
        roots: async () => [],
      },
    });
    try {
      const expected = [];
      for (const connection of direct.servers())
        for (const tool of await connection.listTools())
          expected.push({ ...tool, name: `${connection.id}__${tool.name}` });
      const { tools, nextCursor } = await gw.client.listTools();
      expect(nextCursor).toBeUndefined();
      expect(tools.map((t) => t.name).sort()).toEqual(expected.map((t) => t.name).sort());
      const echo = tools.find((t) => t.name === 'everything__echo');
      expect(echo).toEqual(expected.find((t) => t.name === 'everything__echo'));
      for (const tool of tools) expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    } finally {
      await direct.close();
    }
  });

  it('routes calls to the right upstream', async () => {
    const echo = await gw.client.callTool({ name: 'everything__echo', arguments: { message: 'through' } });
    expect(textOf(echo)).toBe('Echo: through');
    const read = await gw.client.callTool({
      name: 'files__read_text_file',
      arguments: { path: join(files, 'note.txt') },
    });
    expect(textOf(read)).toContain('hello from a file');
    await gw.client.callTool({
      name: 'memory__create_entities',
      arguments: { entities: [{ name: 'Gateway', entityType: 'thing', observations: ['routes calls'] }] },
    });
    const graph = await gw.client.callTool({ name: 'memory__read_graph', arguments: {} });
    expect(textOf(graph)).toContain('routes calls');
  });

  it('relays to a 2026-07-28 upstream: structured content, warm state, errors as results', async () => {
    const first = await gw.client.callTool({ name: 'bridge__counter', arguments: { label: 'a' } });
    const second = await gw.client.callTool({ name: 'bridge__counter', arguments: { label: 'b' } });
    expect(second.structuredContent).toEqual({
      calls: (first.structuredContent as { calls: number }).calls + 1,
      label: 'b',
    });
    expect(second._meta).toBeUndefined();
    const json = await gw.client.callTool({ name: 'bridge__json', arguments: {} });
    expect(json.structuredContent).toMatchObject({ ok: true });
    const failed = await gw.client.callTool({ name: 'bridge__fails', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toContain('module tool failed on purpose');
  });

  it('routes completions to the upstream that owns the prompt', async () => {
    const result = await gw.client.complete({
      ref: { type: 'ref/prompt', name: 'everything__completable-prompt' },
      argument: { name: 'department', value: 'S' },
    });
    expect(result.completion.values).toEqual(['Sales', 'Support']);
  });

  // Unknown tools (-32602): test/gateway/in-process.test.ts.
  it('passes progress through: one notification per upstream notification', async () => {
    // The SDK client drops a progress notification that arrives in the same read as its response
    // (typescript-sdk #2580), so the client here is mcpkit's Runtime, which does not.
    const runtime = await Runtime.create({
      servers: [
        {
          name: 'gw',
          entry: {
            command: process.execPath,
            args: [CLI, 'gateway', '--only', 'up'],
            cwd: ws.project,
            env: ws.env,
          },
        },
      ],
    });
    try {
      const seen: ProgressUpdate[] = [];
      const result = await runtime
        .server('gw')
        .callTool('up__slow', { n: 5 }, { onProgress: (p) => seen.push(p) });
      expect(textOf(result)).toBe('counted to 5');
      expect(seen).toEqual([1, 2, 3, 4, 5].map((progress) => ({ progress, total: 5 })));
      const none = await runtime.server('gw').callTool('up__slow', { n: 2 });
      expect(textOf(none)).toBe('counted to 2');
    } finally {
      await runtime.close();
    }
  });

  it('passes cancellation through: the upstream gets notifications/cancelled', async () => {
    const controller = new AbortController();
    const call = gw.client.callTool(
      { name: 'up__slow', arguments: { n: 200 } },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort('enough'), 300);
    await expect(call).rejects.toThrow();
    await eventually(() => (existsSync(join(marks, 'cancelled-up')) ? true : undefined), 5000);
  });

  it('forwards elicitation, sampling and roots requests to the client', async () => {
    expect(textOf(await gw.client.callTool({ name: 'up__ask', arguments: {} }))).toContain(
      'Ada (asked: Your name?)',
    );
    expect(textOf(await gw.client.callTool({ name: 'up__sample', arguments: {} }))).toContain('four');
    expect(textOf(await gw.client.callTool({ name: 'up__roots', arguments: {} }))).toContain(
      'file:///work/root',
    );
  });

  it('forwards logging at the level the client set', async () => {
    await gw.client.setLoggingLevel('warning');
    const before = gw.notifications.length;
    await gw.client.callTool({ name: 'up__log', arguments: {} });
    const note = await eventually(() =>
      gw.notifications.find((n) => (n.params as { data?: unknown } | undefined)?.data === 'up warns'),
    );
    expect(note).toEqual({
      method: 'notifications/message',
      params: { level: 'warning', logger: 'up/fixture', data: 'up warns' },
    });
    const later = gw.notifications.slice(before).filter((n) => n.method === 'notifications/message');
    expect(later.every((n) => ['warning', 'error'].includes((n.params as { level: string }).level))).toBe(
      true,
    );
  });

  it('proxies resources (URIs kept, templates routed) and serves its status', async () => {
    const { resources } = await gw.client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain('mcpkit://gateway/status');
    expect(uris).toContain('up://info');
    const { resourceTemplates } = await gw.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('up://items/{id}');
    const info = await gw.client.readResource({ uri: 'up://info' });
    expect(info.contents[0]).toMatchObject({ uri: 'up://info', text: 'up says up://info' });
    const item = await gw.client.readResource({ uri: 'up://items/7' });
    expect(item.contents[0]).toMatchObject({ text: 'up says up://items/7' });
    await expect(gw.client.readResource({ uri: 'nowhere://x' })).rejects.toMatchObject({ code: -32602 });
    const status = JSON.parse(
      ((await gw.client.readResource({ uri: 'mcpkit://gateway/status' })).contents[0] as { text: string })
        .text,
    );
    expect(status.servers.map((s: { name: string; state: string }) => `${s.name}:${s.state}`).sort()).toEqual(
      ['bridge:ready', 'everything:ready', 'files:ready', 'memory:ready', 'up:ready'],
    );
  });

  it('proxies prompts under prefixed names', async () => {
    const { prompts } = await gw.client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('up__greeting');
    const prompt = await gw.client.getPrompt({ name: 'up__greeting', arguments: { who: 'Bob' } });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Hello Bob from up' });
  });

  it('stops every upstream process when the client goes away', async () => {
    const pid = Number(textOf(await gw.client.callTool({ name: 'up__pid', arguments: {} })));
    expect(alive(pid)).toBe(true);
    await gw.close();
    await eventually(() => (alive(pid) ? undefined : true), 8000);
  });
});
