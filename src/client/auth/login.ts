import { auth, type FetchLike } from '@modelcontextprotocol/client';
import { McpkitError } from '../../errors/index.js';
import { openLoopback } from './loopback.js';
import type { StoreOAuthProvider } from './oauth-provider.js';
import type { AuthChallenge } from './token-renewal.js';

/**
 * Shows an authorization URL to the user (prints it, opens a browser, asks a downstream client to open
 * it). The login completes when the browser comes back to the loopback redirect.
 */
export type AuthorizationUrlHandler = (url: URL, server: string) => void | Promise<void>;

/** What one login needs. */
export interface LoginOptions {
  onAuthorizationUrl: AuthorizationUrlHandler;
  fetchFn: FetchLike;
  challenge?: AuthChallenge;
  signal?: AbortSignal;
  /** How long to wait for the browser to come back (default 5 minutes). */
  timeoutMs?: number;
}

const LOGIN_TIMEOUT_MS = 300_000;

/**
 * One OAuth login for a server: client credentials at once; otherwise authorization code + PKCE (S256)
 * with a loopback redirect on 127.0.0.1, the client registered as the server allows (pre-registered, CIMD,
 * dynamic registration), the tokens saved in the store. The SDK does the protocol; this is the glue.
 */
export async function runLogin(provider: StoreOAuthProvider, options: LoginOptions): Promise<void> {
  const serverUrl = provider.url;
  const { fetchFn } = options;
  const scope = options.challenge?.scope;
  const resourceMetadataUrl = options.challenge?.resourceMetadataUrl;
  const base = { serverUrl, fetchFn, ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}) };
  // Discovered afresh: the server may have moved to another authorization server (SEP-2352).
  await provider.invalidateCredentials('discovery');
  if (provider.machineLogin) {
    if ((await auth(provider, { ...base, ...(scope ? { scope } : {}) })) !== 'AUTHORIZED')
      throw new McpkitError(
        'AUTH_FAILED',
        `server "${provider.options.server}": the client credentials login failed`,
      );
    return;
  }
  const port = provider.settings.callbackPort ?? redirectPort(await provider.record()) ?? 0;
  const loopback = await openLoopback(port, provider.settings.callbackPort === undefined);
  const timeout = AbortSignal.timeout(options.timeoutMs ?? LOGIN_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const server = provider.options.server;
    provider.beginLogin({
      redirectUrl: loopback.redirectUrl,
      showUrl: async (url) => options.onAuthorizationUrl(url, server),
    });
    // Listening before the URL is shown: a headless client may come back at once.
    const callback = loopback.callback(() => provider.loginState, signal);
    callback.catch(() => undefined);
    const first = await auth(provider, { ...base, ...(scope ? { scope } : {}), forceReauthorization: true });
    if (first === 'AUTHORIZED') return;
    const { code, iss } = await callback.catch((error: unknown) => {
      if (timeout.aborted)
        throw new McpkitError(
          'AUTH_FAILED',
          `server "${server}": no login within ${Math.round((options.timeoutMs ?? LOGIN_TIMEOUT_MS) / 1000)} s`,
        );
      throw error;
    });
    const second = await auth(provider, {
      ...base,
      authorizationCode: code,
      ...(iss === undefined ? {} : { iss }),
    });
    if (second !== 'AUTHORIZED')
      throw new McpkitError('AUTH_FAILED', `server "${server}": the login did not complete`);
  } finally {
    provider.endLogin();
    await loopback.close();
  }
}

/** The loopback port a registered client was registered with, to reuse it (its redirect URI must match). */
function redirectPort(record: Awaited<ReturnType<StoreOAuthProvider['record']>>): number | undefined {
  const issuer = record?.issuer ?? Object.keys(record?.issuers ?? {})[0];
  const client = issuer ? record?.issuers[issuer]?.client : undefined;
  const uri = (client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  if (!Array.isArray(uri) || typeof uri[0] !== 'string') return undefined;
  try {
    const url = new URL(uri[0]);
    return url.hostname === '127.0.0.1' && url.port ? Number(url.port) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The headless authorization: fetches the authorization URL and follows its redirects to the loopback, as
 * a browser would — for authorization servers that approve without a user (test servers, the conformance
 * suite's). Never the default: `mcpkit auth login --headless` or `MCPKIT_AUTH_HEADLESS=1` asks for it.
 */
export async function followAuthorizationUrl(url: URL, fetchFn: FetchLike = fetch): Promise<void> {
  let next = url;
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetchFn(next, { redirect: 'manual' });
    await response.body?.cancel().catch(() => undefined);
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) {
      if (response.status >= 400)
        throw new McpkitError(
          'AUTH_FAILED',
          `the authorization URL answered HTTP ${response.status} (${next.host})`,
        );
      return;
    }
    next = new URL(location, next);
  }
  throw new McpkitError('AUTH_FAILED', 'the authorization URL redirected more than 10 times');
}
