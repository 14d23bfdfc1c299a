import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CLIENT_INFO_META_KEY, createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { envelopeClientInfo, identityOf } from '../../src/gateway/deferral.js';
import {
  clientOf,
  eventually,
  gatewayOf,
  toolNames as names,
  textOf,
  listChanges as toolListChanges,
  toolServer,
} from '../helpers/gateway.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const many = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`t${i}`, `Counts sheep, batch ${i}.`]));

/** Tools to search among: one clearly about each subject. */
const library = toolServer('lib', {
  ...many(20),
  create_issue: 'Create a new issue in a GitHub repository.',
  read_file: 'Read the contents of a file from disk.',
  send_mail: 'Send an email message to a recipient.',
});

describe('gateway deferral: the default lists every tool', () => {
  it('lists all 23 tools by name (no tool_search), and each is callable as listed', async () => {
    const { gateway } = await gatewayOf([library]);
    const client = await clientOf(gateway);
    const listed = await names(client);
    expect(listed).toHaveLength(23);
    expect(listed).not.toContain('tool_search');
    expect(textOf(await client.client.callTool({ name: 'lib__read_file', arguments: { path: 'a' } }))).toBe(
      'lib:read_file {"path":"a"}',
    );
  });
});

describe('gateway deferral: opt-in (deferThreshold)', () => {
  it('lists only tool_search and call_tool past the threshold; call_tool calls any tool', async () => {
    const { gateway } = await gatewayOf([library], { deferThreshold: 15 });
    const client = await clientOf(gateway);
    expect(await names(client)).toEqual(['tool_search', 'call_tool']);
    const called = await client.client.callTool({
      name: 'call_tool',
      arguments: { name: 'lib__send_mail', arguments: { to: 'ada' } },
    });
    expect(textOf(called)).toBe('lib:send_mail {"to":"ada"}');
    const bad = await client.client.callTool({ name: 'call_tool', arguments: { arguments: {} } });
    expect(bad).toMatchObject({ isError: true });
    expect(textOf(bad)).toBe('call_tool: "name" must be the name of a tool (as tool_search returned it)');
  });

  it('tool_search ranks the tool that does what was asked first and returns at most `limit`', async () => {
    const { gateway } = await gatewayOf([library], { deferThreshold: 15 });
    const client = await clientOf(gateway);
    const found = await client.client.callTool({
      name: 'tool_search',
      arguments: { query: 'open an issue on github', limit: 2 },
    });
    const matches = (found.structuredContent as { tools: { name: string }[] }).tools;
    expect(matches[0]?.name).toBe('lib__create_issue');
    expect(matches.length).toBeLessThanOrEqual(2);
    expect(textOf(found)).toContain('1. lib__create_issue (server lib)');
    const one = await client.client.callTool({
      name: 'tool_search',
      arguments: { query: 'email', limit: 1 },
    });
    expect((one.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual([
      'lib__send_mail',
    ]);
    const empty = await client.client.callTool({ name: 'tool_search', arguments: { query: ' ' } });
    expect(textOf(empty)).toBe('tool_search: "query" must be a non-empty string');
  });

  it("reveals what one session's tool_search found to that session only", async () => {
    const { gateway } = await gatewayOf([library], { deferThreshold: 15 });
    const alice = await clientOf(gateway, { name: 'alice' });
    const bob = await clientOf(gateway, { name: 'bob' });
    await alice.client.callTool({ name: 'tool_search', arguments: { query: 'read a file', limit: 1 } });
    await eventually(() => (toolListChanges(alice) > 0 ? true : undefined), 5000);
    expect(await names(alice)).toEqual(['tool_search', 'call_tool', 'lib__read_file']);
    expect(await names(bob)).toEqual(['tool_search', 'call_tool']);
    expect(toolListChanges(bob)).toBe(0);
    // A revealed tool can then be called by its name.
    expect(textOf(await alice.client.callTool({ name: 'lib__read_file', arguments: {} }))).toBe(
      'lib:read_file {}',
    );
  });

  it('never defers the tools of a server marked alwaysLoad', async () => {
    const { gateway } = await gatewayOf(
      [library, toolServer('core', { status: 'Shows the status.' }, { alwaysLoad: true })],
      { deferThreshold: 15 },
    );
    const client = await clientOf(gateway);
    expect(await names(client)).toEqual(['tool_search', 'call_tool', 'core__status']);
  });
});

describe('gateway deferral: who a 2026-07-28 request comes from', () => {
  it('is the clientInfo name and version of the request _meta envelope, or one anonymous client', () => {
    const meta = { [CLIENT_INFO_META_KEY]: { name: 'inspector', version: '2.1.0' } };
    expect(identityOf(envelopeClientInfo(meta))).toBe('client:inspector@2.1.0');
    expect(identityOf({ name: 'inspector', version: '2.2.0' })).not.toBe('client:inspector@2.1.0');
    expect(identityOf(envelopeClientInfo({}))).toBe('client:anonymous');
  });
});

describe('gateway deferral: 2026-07-28 clients (no session)', () => {
  /** A 2026-07-28 client talking to the gateway through the SDK's fetch-shaped HTTP handler (no port). */
  async function modernClient(handler: McpHttpHandler, name: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    });
    const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(transport);
    cleanups.push(() => client.close());
    expect(client.getProtocolEra()).toBe('modern');
    return client;
  }

  it("reveals what one client's tool_search found to that client (by clientInfo) only", async () => {
    const { gateway } = await gatewayOf([library], { deferThreshold: 15 });
    const handler = createMcpHandler(gateway.factory);
    cleanups.push(() => handler.close());
    const inspector = await modernClient(handler, 'inspector');
    const other = await modernClient(handler, 'other-agent');
    await inspector.callTool({ name: 'tool_search', arguments: { query: 'send an email', limit: 1 } });
    const listed = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);
    expect(await listed(inspector)).toEqual(['tool_search', 'call_tool', 'lib__send_mail']);
    expect(await listed(other)).toEqual(['tool_search', 'call_tool']);
  });
});
