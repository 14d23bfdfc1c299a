import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { type HttpServerHandle, ProtectedResource, serveOverHttp } from '../../src/serve/index.js';
import { type AuthorizationServer, startAuthorizationServer } from '../helpers/authorization-server.js';
import { CLI } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { startGateway, toolServer } from '../helpers/gateway.js';
import { browse } from '../helpers/oauth-server.js';
import { freePort } from '../helpers/servers.js';

// A gateway as an OAuth-protected resource (RFC 9728 + JWT access tokens of oidc-provider, checked with jose).
let as: AuthorizationServer;
let http: HttpServerHandle;
let stopGateway: () => Promise<void>;
let dir: string;

beforeAll(async () => {
  as = await startAuthorizationServer({ tokens: 'jwt' });
  const started = await startGateway([toolServer('a', { read: 'Reads.' })], {
    profiles: { reader: { tools: ['a__read'] } },
  });
  stopGateway = started.close;
  const protectedResource = new ProtectedResource({ issuer: as.issuer, scopes: ['mcp:tools'] });
  http = await serveOverHttp(started.gateway.factory, {
    intercept: started.gateway.intercept(),
    protectedResource,
    mounts: [{ path: '/mcp/reader', factory: started.gateway.profile('reader').factory }],
  });
  protectedResource.serveAt(http.url);
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-protected-'));
});

afterAll(async () => {
  await http?.close();
  await stopGateway?.();
  await as?.close();
  await rm(dir, { recursive: true, force: true });
});

const metadataUrl = () => `${new URL(http.url).origin}/.well-known/oauth-protected-resource/mcp`;

/** An initialize of a 2025 client with this Authorization header: the HTTP status and challenge. */
async function statusWith(authorization?: string, url = http.url) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  await response.body?.cancel();
  return { status: response.status, challenge: response.headers.get('www-authenticate') };
}

describe('OAuth protected resource: metadata and token checks', () => {
  it('serves RFC 9728 metadata naming the authorization server', async () => {
    const response = await fetch(metadataUrl());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      resource: http.url,
      authorization_servers: [as.issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp:tools'],
    });
  });

  it('answers 401 with resource_metadata without a token, and with invalid_token for a bad one', async () => {
    const missing = await statusWith();
    expect(missing.status).toBe(401);
    expect(missing.challenge).toContain(`resource_metadata="${metadataUrl()}"`);
    const garbage = await statusWith('Bearer not-a-jwt');
    expect(garbage.status).toBe(401);
    expect(garbage.challenge).toContain('error="invalid_token"');
    expect(garbage.challenge).toContain(`resource_metadata="${metadataUrl()}"`);
  });

  it('refuses a token for another resource (audience) and one signed by another key', async () => {
    const other = await as.machineToken('http://other.example/mcp');
    expect((await statusWith(`Bearer ${other}`)).status).toBe(401);
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT({ scope: 'mcp:tools', client_id: 'forger' })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer(as.issuer)
      .setAudience(http.url)
      .setExpirationTime('1h')
      .sign(privateKey);
    const refused = await statusWith(`Bearer ${forged}`);
    expect(refused.status).toBe(401);
    expect(refused.challenge).toContain('error="invalid_token"');
  });

  it('accepts a token for this resource, for the whole MCP session', async () => {
    const token = await as.machineToken(http.url);
    expect((await statusWith(`Bearer ${token}`)).status).toBe(200);
    const client = new Client({ name: 'rs-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(http.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['a__read']);
    } finally {
      await client.close();
    }
  });

  it('refuses a token once it has expired', async () => {
    as.accessTokenTtl = 4;
    const token = await as.machineToken(http.url).finally(() => {
      as.accessTokenTtl = 3600;
    });
    // The token's life is the scenario: it is good, then it is not.
    expect((await statusWith(`Bearer ${token}`)).status).toBe(200);
    await eventually(async () => ((await statusWith(`Bearer ${token}`)).status === 401 ? true : undefined));
  });

  it('makes each profile its own resource: its metadata, and tokens issued for it only', async () => {
    const reader = `${http.url}/reader`;
    const metadata = await fetch(
      `${new URL(http.url).origin}/.well-known/oauth-protected-resource/mcp/reader`,
    );
    expect(((await metadata.json()) as { resource: string }).resource).toBe(reader);
    const forMain = await statusWith(`Bearer ${await as.machineToken(http.url)}`, reader);
    expect(forMain.status).toBe(401);
    expect(forMain.challenge).toContain(`resource_metadata="${metadataUrl()}/reader"`);
    expect((await statusWith(`Bearer ${await as.machineToken(reader)}`, reader)).status).toBe(200);
  });

  it('answers 403 insufficient_scope when the token lacks a required scope', async () => {
    const strict = new ProtectedResource({ issuer: as.issuer, scopes: ['mcp:admin'], resource: http.url });
    const token = await as.machineToken(http.url, 'mcp:tools');
    const refused = await strict.authorize(`Bearer ${token}`, '/mcp');
    if (!(refused instanceof Response)) throw new Error('accepted a token without the scope');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    const admin = await strict.authorize(`Bearer ${await as.machineToken(http.url, 'mcp:admin')}`, '/mcp');
    expect(admin instanceof Response ? admin.status : admin.scopes).toEqual(['mcp:admin']);
    expect(admin instanceof Response ? '' : admin.clientId).toBe('machine');
  });
});

describe('OAuth protected resource: an authorization server that cannot be reached', () => {
  it('answers 500 server_error and says once why', async () => {
    const port = await freePort();
    const errors: string[] = [];
    const resource = new ProtectedResource({
      issuer: `http://127.0.0.1:${port}`,
      resource: 'http://127.0.0.1/mcp',
      onError: (error) => errors.push(error.message),
    });
    const answer = await resource.authorize('Bearer a.b.c', '/mcp');
    expect(answer instanceof Response && answer.status).toBe(500);
    expect(errors).toEqual([
      `cannot find the keys of http://127.0.0.1:${port}: no RFC 8414 or OpenID metadata there names a jwks_uri for that issuer; check the issuer URL (exactly as the server states it) and that it is reachable`,
    ]);
  });
});

describe("OAuth protected resource: mcpkit's own OAuth client logs in end to end", () => {
  it('finds the authorization server from the 401, logs in through the browser and calls a tool', async () => {
    await writeFile(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { gw: { url: http.url } } }));
    const env = { PATH: process.env.PATH, HOME: dir, MCPKIT_CONFIG_DIR: join(dir, 'config') };
    const mcpkit = async (args: string[]) => {
      let stdout = '';
      let stderr = '';
      const browsing: Promise<void>[] = [];
      const code = await run(args, {
        out: (text) => {
          stdout += text;
        },
        err: (text) => {
          stderr += text;
          const url = /^ {2}(http\S+)$/m.exec(text)?.[1];
          if (url) browsing.push(browse(new URL(url)));
        },
        cwd: dir,
        env,
        stdin: Object.assign(Readable.from([]), { isTTY: false }),
        stderrIsTTY: false,
      });
      await Promise.all(browsing);
      return { code, stdout, stderr };
    };
    const login = await mcpkit(['auth', 'login', 'gw', '--no-browser']);
    expect(login.stdout).toMatch(
      /^logged in to server "gw" \(scopes mcp:tools; .*issuer http:\/\/127\.0\.0\.1:\d+\)\n$/,
    );
    expect(login.code).toBe(0);
    const call = await mcpkit(['call', 'gw', 'a__read']);
    expect(call.stdout).toBe('a:read {}\n');
    expect(call.code).toBe(0);
  });
});

describe('mcpkit gateway --oauth-issuer: the CLI serves beyond loopback with OAuth', () => {
  it('starts on 0.0.0.0, serves the metadata, refuses a request without a token and takes one with it', async () => {
    const home = await mkdtemp(join(tmpdir(), 'mcpkit-protected-cli-'));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const child = spawn(
      process.execPath,
      [CLI, 'gateway', '-t', 'http', '--host', '0.0.0.0', '--port', String(port), '--no-search'].concat([
        '--oauth-issuer',
        as.issuer,
        '--oauth-resource',
        url,
        '--oauth-scope',
        'mcp:tools',
      ]),
      {
        cwd: home,
        env: { PATH: process.env.PATH, HOME: home, MCPKIT_CONFIG_DIR: join(home, 'config') },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    try {
      await eventually(() => (stderr.includes(`(OAuth: access tokens of ${as.issuer})`) ? true : undefined));
      const metadata = await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`);
      expect(((await metadata.json()) as { resource: string }).resource).toBe(url);
      const refused = await statusWith(undefined, url);
      expect(refused.status).toBe(401);
      expect(refused.challenge).toContain(
        `resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"`,
      );
      expect((await statusWith(`Bearer ${await as.machineToken(url)}`, url)).status).toBe(200);
    } finally {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
      await rm(home, { recursive: true, force: true });
    }
  });
});
