import { chmod, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMcpkitError } from '../../src/errors/index.js';
import { BearerTokens, tokenFileExposure } from '../../src/serve/bearer-tokens.js';
import { createHttpHandler, serveOverHttp } from '../../src/serve/index.js';
import { eventually } from '../helpers/eventually.js';

const ALICE = 'a'.repeat(40);
const BOB = 'b0b'.repeat(12);
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-tokens-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const factory = () => new McpServer({ name: 'guarded', version: '1.0.0' });
const discover = (headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'server/discover',
    ...headers,
  },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  }),
});

describe('bearer tokens on an mcpkit HTTP server', () => {
  it('refuses a request without a token or with a wrong one (401, RFC 6750 challenge), serves one with a right one', async () => {
    const tokens = BearerTokens.parse(`# who may call\nalice:${ALICE}\n\nbob: ${BOB}\n`, 'tokens.txt');
    expect(tokens.names).toEqual(['alice', 'bob']);
    const handler = createHttpHandler(factory, { tokens });
    try {
      const none = await handler.request('/mcp', discover());
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer realm="mcpkit"');
      expect(await none.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32001, message: 'Unauthorized: a valid bearer token is required' },
      });
      const wrong = await handler.request('/mcp', discover({ authorization: `Bearer ${ALICE}x` }));
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="mcpkit", error="invalid_token"');
      const right = await handler.request('/mcp', discover({ authorization: `bearer ${BOB}` }));
      expect(right.status).toBe(200);
      expect(tokens.match(`Bearer ${ALICE}`)).toBe('alice');
      expect(tokens.match(`Basic ${ALICE}`)).toBeUndefined();
    } finally {
      await handler.close();
    }
  });

  it('a 2025 client (SDK v1: initialize, then a session) with the header works over a real port; without it, 401', async () => {
    const http = await serveOverHttp(factory, { tokens: BearerTokens.single('ci', ALICE, 'env') });
    try {
      const connectWith = async (token?: string) => {
        const client = new V1Client({ name: 't', version: '1' });
        const headers = token ? { authorization: `Bearer ${token}` } : undefined;
        await client.connect(
          new V1HttpTransport(new URL(http.url), headers ? { requestInit: { headers } } : {}),
        );
        await client.ping();
        const version = client.getServerVersion();
        await client.close();
        return version;
      };
      expect(await connectWith(ALICE)).toMatchObject({ name: 'guarded', version: '1.0.0' });
      await expect(connectWith()).rejects.toThrow(/Unauthorized: a valid bearer token is required/u);
    } finally {
      await http.close();
    }
  });

  it("passes the token's name (never the token) to the server's handlers, for both protocol generations", async () => {
    const tokens = BearerTokens.parse(`alice:${ALICE}\nbob:${BOB}\n`, 'tokens.txt');
    const whoami = () => {
      const server = new McpServer({ name: 'guarded', version: '1.0.0' });
      server.registerTool('whoami', { description: 'who calls' }, async (ctx) => ({
        content: [{ type: 'text', text: JSON.stringify(ctx.http?.authInfo ?? null) }],
      }));
      return server;
    };
    const handler = createHttpHandler(whoami, { tokens });
    try {
      for (const modern of [false, true]) {
        const client = new Client(
          { name: 't', version: '1' },
          modern ? { versionNegotiation: { mode: 'auto' } } : {},
        );
        await client.connect(
          new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
            fetch: (url, init) => handler.request(new Request(url, init)),
            requestInit: { headers: { authorization: `Bearer ${BOB}` } },
          }),
        );
        const result = await client.callTool({ name: 'whoami', arguments: {} });
        expect(JSON.parse((result.content as { text: string }[])[0]?.text ?? '')).toEqual({
          token: '',
          clientId: 'bob',
          scopes: [],
        });
        await client.close();
      }
    } finally {
      await handler.close();
    }
  });

  it('a bad token file is one line naming file:line, never quoting the token', () => {
    const cases: [string, string][] = [
      ['alice', 'list.txt:1: expected "name:token"'],
      [
        `alice:short-secret-1`,
        'list.txt:1: the token of "alice" must be at least 32 characters without spaces (make one with: openssl rand -hex 32)',
      ],
      [
        `\nal ice:${ALICE}`,
        'list.txt:2: the name must be 1-64 letters, digits, ".", "_" or "-" (got "al ice")',
      ],
      [`a:${ALICE}\na:${BOB}`, 'list.txt:2: "a" is named twice'],
      ['# nobody\n', 'list.txt: no tokens (one "name:token" per line)'],
    ];
    for (const [text, message] of cases) {
      let thrown: unknown;
      try {
        BearerTokens.parse(text, 'list.txt');
      } catch (error) {
        thrown = error;
      }
      expect(isMcpkitError(thrown) && thrown.code).toBe('CONFIG_INVALID');
      expect((thrown as Error).message).toBe(message);
    }
  });

  it('a token file is re-read when it changes (rotation without restart); a broken change keeps the tokens in force', async () => {
    const file = join(dir, 'rotate.txt');
    await writeFile(file, `alice:${ALICE}\n`, { mode: 0o600 });
    const problems: string[] = [];
    const tokens = BearerTokens.fromFile(file, (error) => problems.push(error.message));
    expect(tokens.match(`Bearer ${ALICE}`)).toBe('alice');
    // Written whole, then renamed over: how rotation should be done.
    await writeFile(`${file}.new`, `bob:${BOB}\n`, { mode: 0o600 });
    await rename(`${file}.new`, file);
    await eventually(() => (tokens.match(`Bearer ${BOB}`) === 'bob' ? true : undefined));
    expect(tokens.match(`Bearer ${ALICE}`)).toBeUndefined();
    await writeFile(file, 'bob\n');
    // Checked when a request comes: each match may notice the change.
    await eventually(() => (tokens.match(`Bearer ${BOB}`) && problems.length > 0 ? true : undefined));
    expect(problems).toEqual([`${file}:1: expected "name:token"`]);
    expect(tokens.match(`Bearer ${BOB}`)).toBe('bob');
  });

  it('warns about a token file others can read', async () => {
    const file = join(dir, 'open.txt');
    await writeFile(file, `alice:${ALICE}\n`);
    await chmod(file, 0o644);
    expect(tokenFileExposure(file)).toBe(
      `the token file ${file} is readable by others (mode 0644): chmod 600 ${file}`,
    );
    await chmod(file, 0o600);
    expect(tokenFileExposure(file)).toBeUndefined();
  });
});
