import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { capResult, pageEnds } from '../../src/gateway/result-cap.js';
import { ResultStore } from '../../src/gateway/result-store.js';
import { createHttpHandler } from '../../src/serve/index.js';
import { connectInProcess, inProcessUpstream, startGateway, textOf } from '../helpers/gateway.js';

// --max-result-tokens: a result over the cap is cut at a line boundary with a note; the whole is a resource.
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** 3,000 numbered lines of 40 characters: 120,000 characters, about 30,000 tokens. */
const BIG = Array.from(
  { length: 3000 },
  (_, i) => `line ${String(i).padStart(5, '0')} ${'x'.repeat(28)}`,
).join('\n');

const dumper = inProcessUpstream('logs', () => {
  const server = new McpServer({ name: 'logs', version: '1.0.0' });
  server.registerTool('dump', { description: 'Everything.' }, async () => ({
    content: [{ type: 'text', text: BIG }],
  }));
  server.registerTool('small', { description: 'A little.' }, async () => ({
    content: [{ type: 'text', text: 'short' }],
  }));
  return server;
});

const NOTE =
  /^\[mcpkit gateway: the result was cut here, at a line boundary under the 5,000-token cap: ([\d,]+) of 119,999 characters \(about ([\d,]+) tokens\) left out\. Read the rest with resources\/read: (mcpkit:\/\/results\/[0-9a-f-]+)\/2 to \3\/(\d+) \(pages of the same size\), or the whole at \3; kept 30 min\.\]$/;

/** The shown part, the URI of the whole and how many pages, from a cut result (the page, then the note). */
function parseCut(result: { content?: unknown }) {
  const [page, note, ...rest] = result.content as { type: string; text: string }[];
  expect(rest).toEqual([]);
  const parts = NOTE.exec(note?.text ?? '');
  if (!page || !parts) throw new Error(`no note in: ${JSON.stringify(note)}`);
  return { shown: page.text, uri: parts[3] as string, pages: Number(parts[4]), left: parts[1] as string };
}

async function readAll(read: (uri: string) => Promise<string>, uri: string, pages: number, first: string) {
  let joined = first;
  for (let page = 2; page <= pages; page++) joined += await read(`${uri}/${page}`);
  return joined;
}

describe('gateway: result cap (--max-result-tokens)', () => {
  it('cuts a 2025 client’s result at a line boundary, says how much is left, and serves the rest as resources', async () => {
    const started = await startGateway([dumper], { maxResultTokens: 5000 });
    cleanups.push(started.close);
    const { client, close } = await connectInProcess(started.gateway);
    cleanups.push(close);
    const result = await client.callTool({ name: 'logs__dump', arguments: {} });
    const { shown, uri, pages, left } = parseCut(result);
    // Within the cap (5,000 tokens = 20,000 characters, note included), whole lines only.
    expect(textOf(result).length).toBeLessThanOrEqual(20_000);
    expect(BIG.startsWith(shown)).toBe(true);
    expect(shown.endsWith('x\n')).toBe(true);
    expect(Number(left.replaceAll(',', ''))).toBe(BIG.length - shown.length);
    const read = async (u: string) => {
      const { contents } = await client.readResource({ uri: u });
      return (contents[0] as { text: string }).text;
    };
    expect(await read(uri)).toBe(BIG);
    expect(await readAll(read, uri, pages, shown)).toBe(BIG);
    await expect(client.readResource({ uri: `${uri}/${pages + 1}` })).rejects.toThrow(/not found/i);
    // A small result is untouched.
    expect(textOf(await client.callTool({ name: 'logs__small', arguments: {} }))).toBe('short');
  });

  it('does the same for a 2026-07-28 client over HTTP (the fast path), read back with resources/read', async () => {
    const started = await startGateway([dumper], { maxResultTokens: 5000 });
    cleanups.push(started.close);
    const http = createHttpHandler(started.gateway.factory, { intercept: started.gateway.intercept() });
    cleanups.push(() => http.close());
    const client = new Client({ name: 'modern', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
        fetch: (url, init) => http.request(new Request(url, init)),
      }),
    );
    cleanups.push(() => client.close());
    expect(client.getProtocolEra()).toBe('modern');
    const { shown, uri, pages } = parseCut(await client.callTool({ name: 'logs__dump', arguments: {} }));
    const read = async (u: string) =>
      ((await client.readResource({ uri: u })).contents[0] as { text: string }).text;
    expect(await readAll(read, uri, pages, shown)).toBe(BIG);
  });

  it('leaves results alone with 0', async () => {
    const started = await startGateway([dumper], { maxResultTokens: 0 });
    cleanups.push(started.close);
    const { client, close } = await connectInProcess(started.gateway);
    cleanups.push(close);
    expect(textOf(await client.callTool({ name: 'logs__dump', arguments: {} }))).toBe(BIG);
  });
});

describe('result cap: pages and the store', () => {
  it('ends pages after a newline, or mid-line when a line is longer than half a page', () => {
    expect(pageEnds('aaaa\nbbbb\ncccc', 8)).toEqual([5, 10, 14]);
    expect(pageEnds('a'.repeat(20), 8)).toEqual([8, 16, 20]);
    // Never inside a surrogate pair.
    expect(pageEnds(`${'a'.repeat(7)}😀${'a'.repeat(8)}`, 8)).toEqual([7, 15, 17]);
  });

  it('keeps other blocks and structured content, and one text for the text blocks', () => {
    const store = new ResultStore();
    const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };
    const cut = capResult(
      {
        content: [{ type: 'text', text: 'x\n'.repeat(3000) }, image, { type: 'text', text: 'tail' }],
        structuredContent: { n: 1 },
      },
      1000,
      store,
    );
    expect(cut.content.map((b) => b.type)).toEqual(['text', 'text', 'image']);
    expect(cut.structuredContent).toEqual({ n: 1 });
    expect(store.size).toBe(1);
  });

  it('forgets results after their time, and the oldest first past its bounds', () => {
    let now = 0;
    const store = new ResultStore({ maxEntries: 2, maxChars: 10, ttlMs: 1000 }, () => now);
    const a = store.put('aaaa', [4]) as string;
    const b = store.put('bbbb', [2, 4]) as string;
    expect(store.read(`mcpkit://results/${b}/2`)?.text).toBe('bb');
    const c = store.put('cccc', [4]) as string;
    expect(store.read(`mcpkit://results/${a}`)).toBeUndefined();
    expect(store.read(`mcpkit://results/${c}`)?.text).toBe('cccc');
    expect(store.put('x'.repeat(11), [11])).toBeUndefined();
    now = 1001;
    expect(store.read(`mcpkit://results/${c}`)).toBeUndefined();
    expect(store.size).toBe(0);
  });
});
