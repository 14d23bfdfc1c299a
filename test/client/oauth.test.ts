import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { FileTokenStore, Runtime } from '../../src/client/index.js';
import { CLI, type CliResult } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { browse, type OAuthSetup, startOAuthSetup } from '../helpers/oauth-server.js';

// OAuth against a real authorization server (oidc-provider on 127.0.0.1) in front of an mcpkit HTTP server
// that checks every bearer token. The test plays the user's browser through login and consent.

let setup: OAuthSetup;
let dir: string;
let env: Record<string, string | undefined>;
/** Everything mcpkit printed in this file, for the no-secrets check at the end. */
const printed: string[] = [];

beforeAll(async () => {
  setup = await startOAuthSetup();
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-oauth-'));
  env = { PATH: process.env.PATH, HOME: dir, MCPKIT_CONFIG_DIR: join(dir, 'config') };
  await writeFile(
    join(dir, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        remote: { url: setup.url },
        machine: {
          url: setup.url,
          oauth: {
            grant: 'client_credentials',
            clientId: setup.machine.clientId,
            clientSecret: '${MACHINE_SECRET}',
          },
        },
      },
    }),
  );
});

afterAll(async () => {
  await setup?.close();
  await rm(dir, { recursive: true, force: true });
});

const storeFile = () => join(dir, 'config', 'oauth.json');
const store = () => new FileTokenStore(storeFile());

/** `mcpkit …` in-process without a terminal; an authorization URL it prints is opened by the test's browser. */
async function mcpkit(
  args: string[],
  extraEnv: Record<string, string | undefined> = {},
  terminal = false,
): Promise<CliResult> {
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
    env: { ...env, ...extraEnv },
    stdin: Object.assign(Readable.from([]), { isTTY: terminal }),
    stderrIsTTY: terminal,
  });
  await Promise.all(browsing);
  printed.push(stdout, stderr);
  return { code, stdout, stderr };
}

/** The tokens the store holds for the server. */
async function storedTokens() {
  const record = await store().read(setup.url);
  const tokens = record?.issuer ? record.issuers[record.issuer]?.tokens : undefined;
  if (!tokens) throw new Error('no tokens stored');
  return tokens;
}

/** Makes the stored access token look expired (the server still accepts it: only a refresh ahead helps). */
async function expireStoredToken(): Promise<void> {
  await store().update(setup.url, (record) => {
    const tokens = record.issuer ? record.issuers[record.issuer]?.tokens : undefined;
    if (tokens) tokens.expires_at = Date.now() - 1000;
    return record;
  });
}

describe('OAuth against oidc-provider: mcpkit auth and the CLI', () => {
  it('without a terminal, a server that needs a login fails with one line naming the command', async () => {
    const result = await mcpkit(['call', 'remote', 'whoami']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('mcpkit: server "remote" needs a login: run mcpkit auth login remote\n');
  });

  it('logs in through the loopback redirect (the test is the browser), then calls the tool', async () => {
    const login = await mcpkit(['auth', 'login', 'remote', '--no-browser']);
    expect(login.stderr).toContain(
      'mcpkit: server "remote" needs a login: open this URL and log in:\n  http://127.0.0.1:',
    );
    expect(login.stdout).toMatch(
      /^logged in to server "remote" \(scopes mcp:tools; access token expires in 60 min; refreshable; issuer http:\/\/127\.0\.0\.1:\d+\)\n$/,
    );
    expect(login.code).toBe(0);
    expect((await stat(storeFile())).mode & 0o777).toBe(0o600);
    // oidc-provider offers DPoP: the tokens are bound to mcpkit's key (the server checks every proof).
    expect((await storedTokens()).token_type).toBe('DPoP');
    const call = await mcpkit(['call', 'remote', 'whoami']);
    expect(call.stdout).toBe('hello from the protected server\n');
    expect(call.code).toBe(0);
  });

  it('auth status lists the login (scopes, expiry, the store) and --json never holds a token', async () => {
    const text = await mcpkit(['auth', 'status']);
    expect(text.stdout).toContain(`tokens: file ${storeFile()} (file store only; no keychain)\n`);
    expect(text.stdout).toMatch(
      /^remote: logged in \(scopes mcp:tools; access token expires in \d+ min; refreshable;/m,
    );
    const json = JSON.parse((await mcpkit(['auth', 'status', '--json'])).stdout);
    expect(json.store).toBe(`file ${storeFile()}`);
    expect(json.servers).toEqual([
      expect.objectContaining({
        server: 'remote',
        url: setup.url,
        state: 'logged in',
        issuer: setup.issuer,
        scopes: ['mcp:tools'],
        refreshable: true,
      }),
    ]);
  });

  it('refreshes an access token about to expire before using it, and saves the rotated refresh token', async () => {
    const before = await storedTokens();
    const refreshes = setup.grants.refresh_token ?? 0;
    await expireStoredToken();
    const call = await mcpkit(['call', 'remote', 'whoami']);
    expect(call.stdout).toBe('hello from the protected server\n');
    expect(setup.grants.refresh_token).toBe(refreshes + 1);
    const after = await storedTokens();
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(after.expires_at).toBeGreaterThan(Date.now() + 59 * 60_000);
    // The old refresh token was rotated away (consumed) at the authorization server.
    expect((await setup.provider.RefreshToken.find(before.refresh_token as string))?.consumed).toBeTruthy();
  });

  it('refreshes on a 401 (the access token was revoked) and retries the request once', async () => {
    const { access_token } = await storedTokens();
    await (await setup.provider.AccessToken.find(access_token))?.destroy();
    const refreshes = setup.grants.refresh_token ?? 0;
    const call = await mcpkit(['call', 'remote', 'whoami']);
    expect(call.stdout).toBe('hello from the protected server\n');
    expect(call.code).toBe(0);
    expect(setup.grants.refresh_token).toBe(refreshes + 1);
  });

  it('two processes refreshing at once: one refresh, both calls succeed', async () => {
    await expireStoredToken();
    const refreshes = setup.grants.refresh_token ?? 0;
    const both = await Promise.all([
      spawnCli(['call', 'remote', 'whoami']),
      spawnCli(['call', 'remote', 'whoami']),
    ]);
    for (const result of both)
      expect(result).toEqual({ code: 0, stdout: 'hello from the protected server\n', stderr: '' });
    expect(setup.grants.refresh_token).toBe(refreshes + 1);
  }, 30_000);

  it('concurrent requests of one Runtime share one refresh', async () => {
    await expireStoredToken();
    const refreshes = setup.grants.refresh_token ?? 0;
    const runtime = await Runtime.create({
      servers: [{ name: 'remote', entry: { url: setup.url } }],
      env,
      auth: { store: store() },
    });
    try {
      await expireStoredToken();
      const results = await Promise.all(
        Array.from({ length: 8 }, () => runtime.server('remote').callTool('whoami', {})),
      );
      expect(results.every((r) => JSON.stringify(r.content).includes('hello'))).toBe(true);
    } finally {
      await runtime.close();
    }
    expect(setup.grants.refresh_token).toBe(refreshes + 2);
  });

  it('a revoked refresh token: one line that says to log in again', async () => {
    const { access_token, refresh_token } = await storedTokens();
    await (await setup.provider.RefreshToken.find(refresh_token as string))?.destroy();
    await (await setup.provider.AccessToken.find(access_token))?.destroy();
    const call = await mcpkit(['call', 'remote', 'whoami']);
    expect(call.stderr).toBe(
      'mcpkit: server "remote" was logged out (the login expired or was revoked): log in again with mcpkit auth login remote\n',
    );
    expect(call.code).toBe(1);
  });

  it('client credentials: no browser, no login command, the call just works', async () => {
    const call = await mcpkit(['call', 'machine', 'whoami'], { MACHINE_SECRET: setup.machine.clientSecret });
    expect(call.stdout).toBe('hello from the protected server\n');
    expect(call.code).toBe(0);
    expect(setup.grants.client_credentials).toBe(1);
  });

  it('an entry with its own Authorization header (or "oauth": false) never logs in: the 401 stays an error', async () => {
    await writeFile(
      join(dir, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          ...JSON.parse(await readFile(join(dir, '.mcp.json'), 'utf8')).mcpServers,
          keyed: { url: setup.url, headers: { Authorization: 'Bearer not-a-token' } },
          off: { url: setup.url, oauth: false },
        },
      }),
    );
    for (const name of ['keyed', 'off']) {
      const call = await mcpkit(['call', name, 'whoami']);
      expect(call.stderr).toBe(
        `mcpkit: server "${name}" failed to start (handshake): HTTP 401 Unauthorized from ${setup.url}: check the credentials (headers)\n`,
      );
      expect(call.code).toBe(1);
    }
  });

  it('logout forgets the tokens', async () => {
    const out = await mcpkit(['auth', 'logout', 'remote']);
    expect(out.stdout).toBe('logged out of server "remote"\n');
    expect(await store().read(setup.url)).toBeUndefined();
  });

  it('on a terminal, a command logs in on demand: the browser opener gets the URL as one argument', async () => {
    // A stand-in for xdg-open that records its arguments (the test's browser follows the printed URL).
    const bin = join(dir, 'bin');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" > "${bin}/opened"\n`, {
      mode: 0o755,
    });
    const call = await mcpkit(['call', 'remote', 'whoami'], { PATH: `${bin}:${process.env.PATH}` }, true);
    expect(call.stdout).toBe('hello from the protected server\n');
    expect(call.code).toBe(0);
    const url = /^ {2}(http\S+)$/m.exec(call.stderr)?.[1];
    expect(call.stderr).toContain(
      'mcpkit: server "remote" needs a login: a browser was opened; if it was not, open this URL and log in:\n',
    );
    expect(await eventually(() => readFile(join(bin, 'opened'), 'utf8').catch(() => undefined))).toBe(
      `${url}\n`,
    );
  });

  it('no token, refresh token, code or client secret in anything mcpkit printed', async () => {
    const secrets = new Set<string>([...setup.codes, setup.machine.clientSecret]);
    for (const model of ['AccessToken', 'RefreshToken', 'ClientCredentials'] as const) {
      // Every token the authorization server ever issued in this file (the adapter is in memory).
      for (const token of issued[model]) secrets.add(token);
    }
    expect(secrets.size).toBeGreaterThan(5);
    const all = printed.join('\n');
    for (const secret of secrets) expect(all).not.toContain(secret);
  });
});

const issued = {
  AccessToken: [] as string[],
  RefreshToken: [] as string[],
  ClientCredentials: [] as string[],
};
beforeAll(() => {
  setup.provider.on('access_token.saved', (token) => issued.AccessToken.push(String(token.jti)));
  setup.provider.on('access_token.issued', (token) => issued.AccessToken.push(String(token.jti)));
  setup.provider.on('refresh_token.saved', (token) => issued.RefreshToken.push(String(token.jti)));
  setup.provider.on('client_credentials.saved', (token) => issued.ClientCredentials.push(String(token.jti)));
  setup.provider.on('client_credentials.issued', (token) => issued.ClientCredentials.push(String(token.jti)));
});

/** The built `mcpkit` as its own process, in the same config (for the two-process refresh). */
function spawnCli(args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env: env as NodeJS.ProcessEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      printed.push(stdout, stderr);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}
