import type { Command } from 'commander';
import type { RuntimeServerConfig, ServerAuthRecord } from '../client/index.js';
import { expandServerEntry, isStdioServer } from '../config/index.js';
import { McpkitError } from '../errors/index.js';
import type { CliIO } from './io.js';
import { cliAuth } from './login-prompt.js';
import { tokenStoreFor } from './scale-out.js';
import { only, withRuntime } from './server-runtime.js';
import { resolveTargets } from './target.js';

const STATE_FLAG = '--state <url>';
const STATE_HELP =
  'the token store of gateway replicas: redis://host:port, encrypted with --session-key / MCPKIT_SESSION_KEY (or MCPKIT_STATE)';

/** `mcpkit auth login|logout|status`: OAuth logins to remote servers, kept in the user's token store. */
export function registerAuthCommands(program: Command, io: CliIO): void {
  const auth = program
    .command('auth')
    .description('log in to remote servers that use OAuth (login, logout, status)');
  auth
    .command('login')
    .description('log in to a remote server (a browser opens; the URL is printed too)')
    .argument('<server>', 'configured name or URL')
    .option('--no-browser', 'only print the URL to open (for a machine without a browser)')
    .option(
      '--headless',
      'fetch the authorization URL here and follow its redirects, no browser: only for authorization servers that approve without a user (test servers)',
    )
    .option(STATE_FLAG, STATE_HELP)
    .option('--session-key <file>', "the replicas' key file (or MCPKIT_SESSION_KEY)")
    .action(
      async (
        server: string,
        opts: { browser: boolean; headless?: boolean; state?: string; sessionKey?: string },
      ) => {
        const target = await remoteTarget(io, server);
        const { store, close } = await tokenStoreFor(opts, io);
        try {
          // A new login, not the old tokens: the registered client is kept.
          await store.update(target.url, (record) => {
            for (const issuer of Object.values(record.issuers)) delete issuer.tokens;
            return record;
          });
          const display = { browser: opts.browser, headless: opts.headless === true, always: true };
          await withRuntime(
            io,
            [target.config],
            'fail-fast',
            async (runtime) => {
              only(runtime);
              const record = await store.read(target.url);
              const tokens = record?.issuer ? record.issuers[record.issuer]?.tokens : undefined;
              if (!tokens) {
                io.out(`server "${target.config.name}" did not ask for a login (it answers without one)\n`);
                return;
              }
              io.out(`logged in to server "${target.config.name}"${describeTokens(record)}\n`);
            },
            { ...cliAuth(io, display), store },
          );
        } finally {
          await close();
        }
      },
    );
  auth
    .command('logout')
    .description("forget a server's tokens (and its client registration)")
    .argument('<server>', 'configured name or URL')
    .option(STATE_FLAG, STATE_HELP)
    .option('--session-key <file>', "the replicas' key file (or MCPKIT_SESSION_KEY)")
    .action(async (server: string, opts: { state?: string; sessionKey?: string }) => {
      const target = await remoteTarget(io, server);
      const { store, close } = await tokenStoreFor(opts, io);
      try {
        const had = await store.read(target.url);
        await store.update(target.url, () => undefined);
        io.out(
          had
            ? `logged out of server "${target.config.name}"\n`
            : `server "${target.config.name}" had no login\n`,
        );
      } finally {
        await close();
      }
    });
  auth
    .command('status')
    .description('list the servers logged in to: scopes, expiry, where the tokens are stored')
    .option('--json', 'print JSON (never the tokens themselves)')
    .option(STATE_FLAG, STATE_HELP)
    .option('--session-key <file>', "the replicas' key file (or MCPKIT_SESSION_KEY)")
    .action(async (opts: { json?: boolean; state?: string; sessionKey?: string }) => {
      const { store, close } = await tokenStoreFor(opts, io);
      const records = await store.list().finally(close);
      if (opts.json) {
        const servers = records.map(statusOf);
        io.out(`${JSON.stringify({ store: store.location, servers }, null, 2)}\n`);
        return;
      }
      io.out(
        `tokens: ${store.location}${store.location.startsWith('file') ? ' (file store only; no keychain)' : ''}\n`,
      );
      if (records.length === 0) io.out('no logins\n');
      for (const record of records) {
        const status = statusOf(record);
        io.out(`${status.server}: ${status.state}${describeTokens(record)}\n  ${record.url}\n`);
      }
    });
}

/** The remote server a `<server>` argument names, with its expanded URL (the store's key). */
async function remoteTarget(
  io: CliIO,
  server: string,
): Promise<{ config: RuntimeServerConfig; url: string }> {
  const [config] = await resolveTargets(io, server, undefined);
  if (!config) throw new McpkitError('SERVER_NOT_FOUND', `no server "${server}"`);
  const entry = expandServerEntry(config.name, config.entry, io.env);
  if (isStdioServer(entry))
    throw new McpkitError(
      'INVALID_ARGUMENT',
      `server "${config.name}" is a stdio server; only remote servers log in`,
    );
  if (entry.oauth === false)
    throw new McpkitError('INVALID_ARGUMENT', `server "${config.name}" has "oauth": false in its entry`);
  return { config, url: entry.url };
}

interface LoginStatus {
  server: string;
  url: string;
  state: 'logged in' | 'expired' | 'logged out';
  issuer?: string;
  scopes?: string[];
  expiresAt?: string;
  refreshable: boolean;
}

function statusOf(record: ServerAuthRecord): LoginStatus {
  const tokens = record.issuer ? record.issuers[record.issuer]?.tokens : undefined;
  const expired = tokens?.expires_at !== undefined && tokens.expires_at < Date.now();
  return {
    server: record.name ?? record.url,
    url: record.url,
    state: !tokens ? 'logged out' : expired && !tokens.refresh_token ? 'expired' : 'logged in',
    ...(record.issuer ? { issuer: record.issuer } : {}),
    ...(tokens?.scope ? { scopes: tokens.scope.split(' ') } : {}),
    ...(tokens?.expires_at ? { expiresAt: new Date(tokens.expires_at).toISOString() } : {}),
    refreshable: tokens?.refresh_token !== undefined,
  };
}

/** " (scopes a b; access token expires in 5 min, refreshable; issuer https://…)" */
function describeTokens(record: ServerAuthRecord | undefined): string {
  if (!record) return '';
  const status = statusOf(record);
  const parts: string[] = [];
  if (status.scopes) parts.push(`scopes ${status.scopes.join(' ')}`);
  const tokens = record.issuer ? record.issuers[record.issuer]?.tokens : undefined;
  if (tokens?.expires_at !== undefined) {
    const minutes = Math.round((tokens.expires_at - Date.now()) / 60_000);
    parts.push(
      minutes >= 0 ? `access token expires in ${minutes} min` : `access token expired ${-minutes} min ago`,
    );
  }
  if (status.refreshable) parts.push('refreshable');
  if (status.issuer) parts.push(`issuer ${status.issuer}`);
  return parts.length > 0 ? ` (${parts.join('; ')})` : '';
}
