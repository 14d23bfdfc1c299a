import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { connectInProcess, eventually, startGateway, textOf } from '../helpers/gateway.js';
import { browse, type OAuthSetup, startOAuthSetup } from '../helpers/oauth-server.js';

// The gateway in front of an upstream that needs an OAuth login (oidc-provider on 127.0.0.1 in front of an
// mcpkit HTTP server that checks bearer tokens).

let setup: OAuthSetup;
const dirs: string[] = [];

beforeAll(async () => {
  setup = await startOAuthSetup();
});

afterAll(async () => {
  await setup?.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A fresh config dir (no login yet) with `remote` in its project config. */
async function freshUser(): Promise<{ dir: string; env: Record<string, string | undefined> }> {
  const dir = await mkdtemp(join(tmpdir(), 'mcpkit-gw-oauth-'));
  dirs.push(dir);
  await writeFile(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { remote: { url: setup.url } } }));
  return { dir, env: { PATH: process.env.PATH, HOME: dir, MCPKIT_CONFIG_DIR: join(dir, 'config') } };
}

type Client = Awaited<ReturnType<typeof connectInProcess>>['client'];

async function upstreamState(client: Client): Promise<string | undefined> {
  const read = await client.readResource({ uri: 'mcpkit://gateway/status' });
  const status = JSON.parse((read.contents[0] as { text: string }).text) as {
    servers: { name: string; state: string; lastError?: string }[];
  };
  return status.servers.find((s) => s.name === 'remote')?.state;
}

describe('gateway: an upstream that needs an OAuth login', () => {
  it('is listed as needs-login, its tools fail with one line, and it comes up after `mcpkit auth login`', async () => {
    const { dir, env } = await freshUser();
    const gw = await startGateway([{ name: 'remote', entry: { url: setup.url } }], { env });
    const { client, notifications, close } = await connectInProcess(gw.gateway);
    try {
      expect(
        await eventually(async () => ((await upstreamState(client)) === 'needs-login' ? true : undefined)),
      ).toBe(true);
      expect(gw.log).toContain('server "remote" needs a login: run mcpkit auth login remote');
      const refused = await client.callTool({ name: 'remote__whoami', arguments: {} });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe(
        'Tool remote__whoami is unavailable: server "remote" needs a login: run mcpkit auth login remote',
      );

      // The user logs in from a terminal; the gateway notices the token store change.
      let stderr = '';
      const browsing: Promise<void>[] = [];
      const code = await run(['auth', 'login', 'remote', '--no-browser'], {
        out: () => undefined,
        err: (text) => {
          stderr += text;
          const url = /^ {2}(http\S+)$/m.exec(text)?.[1];
          if (url) browsing.push(browse(new URL(url)));
        },
        cwd: dir,
        env,
        stdin: Readable.from([]),
        stderrIsTTY: false,
      });
      await Promise.all(browsing);
      expect({ code, stderr: stderr.split('\n')[0] }).toEqual({
        code: 0,
        stderr: 'mcpkit: server "remote" needs a login: open this URL and log in:',
      });
      await eventually(async () => ((await upstreamState(client)) === 'ready' ? true : undefined));
      await eventually(() =>
        notifications.some((n) => n.method === 'notifications/tools/list_changed') ? true : undefined,
      );
      const called = await client.callTool({ name: 'remote__whoami', arguments: {} });
      expect(textOf(called)).toBe('hello from the protected server');
    } finally {
      await close();
      await gw.close();
    }
  }, 60_000);

  it('asks a client that supports URL-mode elicitation to open the login, and comes up when the browser returns', async () => {
    const { env } = await freshUser();
    const gw = await startGateway([{ name: 'remote', entry: { url: setup.url } }], { env });
    const { client, close } = await connectInProcess(gw.gateway, {
      capabilities: { elicitation: { url: {} } },
    });
    const asked: { mode?: string; url?: string; message?: string }[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { mode?: string; url?: string; message?: string };
      asked.push(params);
      // The user's browser: through login and consent, back to the gateway's loopback redirect.
      if (params.url) void browse(new URL(params.url));
      return { action: 'accept' };
    });
    try {
      await eventually(async () => ((await upstreamState(client)) === 'needs-login' ? true : undefined));
      const first = await client.callTool({ name: 'remote__whoami', arguments: {} });
      expect(textOf(first)).toContain('needs a login');
      await eventually(async () => ((await upstreamState(client)) === 'ready' ? true : undefined));
      expect(asked).toHaveLength(1);
      expect(asked[0]?.mode).toBe('url');
      expect(asked[0]?.message).toBe('Log in to "remote" so the mcpkit gateway can use its tools.');
      expect(new URL(asked[0]?.url ?? '').origin).toBe(setup.issuer);
      const called = await client.callTool({ name: 'remote__whoami', arguments: {} });
      expect(textOf(called)).toBe('hello from the protected server');
    } finally {
      await close();
      await gw.close();
    }
  }, 60_000);
});
