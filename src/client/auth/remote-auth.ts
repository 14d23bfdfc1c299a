import { type FetchLike, type OAuthClientProvider, withDpopFromProvider } from '@modelcontextprotocol/client';
import { isStdioServer, type ServerEntry } from '../../config/index.js';
import { requestFetch } from '../request-fetch.js';
import { type AuthorizationUrlHandler, runLogin } from './login.js';
import { StoreOAuthProvider } from './oauth-provider.js';
import { authorizedFetch, TokenRenewal } from './token-renewal.js';
import { FileTokenStore, type TokenStore } from './token-store.js';

/**
 * The Runtime's `auth` option: where tokens live and how a login is shown. Without `onAuthorizationUrl` a
 * server that needs a login fails with one line ("needs a login: run mcpkit auth login x"); the library
 * never opens a browser by itself.
 */
export interface RuntimeAuthOptions {
  /** Default: the user's file store (`oauth.json` in the user config dir), shared with the CLI. */
  store?: TokenStore;
  /** Called with the authorization URL when a server needs a login; the login completes when the browser comes back. */
  onAuthorizationUrl?: AuthorizationUrlHandler;
  /** mcpkit's Client ID Metadata Document (an https URL), for servers that support CIMD. */
  clientMetadataUrl?: string;
  /** How long a login may take (default 5 minutes). */
  loginTimeoutMs?: number;
  /** When set, a login is tried only while this says someone can be shown the URL (a gateway's client). */
  canShowLogin?: () => boolean;
}

/** The auth settings of a running Runtime (the store resolved). */
export interface ConnectionAuth extends RuntimeAuthOptions {
  store: TokenStore;
}

/** The Runtime's auth settings from its options (`false`: no OAuth at all). */
export function connectionAuth(
  options: RuntimeAuthOptions | false | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ConnectionAuth | undefined {
  if (options === false) return undefined;
  return { ...options, store: options?.store ?? FileTokenStore.forUser(env) };
}

/** OAuth for one remote connection: the SDK provider over the store, the renewal and the fetch with both. */
export class RemoteAuth {
  readonly provider: StoreOAuthProvider;
  readonly renewal: TokenRenewal;
  /** The transport's fetch: the renewal outside (fresh token, one retry on 401), DPoP proofs inside. */
  readonly fetch: FetchLike;
  /**
   * The provider as the transport sees it: without `dpop`, because the transport would otherwise put its
   * own DPoP layer outside the renewal, where a refreshed token could no longer get its proof.
   */
  readonly transportProvider: OAuthClientProvider;

  constructor(
    server: string,
    url: string,
    entry: Extract<ServerEntry, { url: string }>,
    private readonly auth: ConnectionAuth,
  ) {
    this.provider = new StoreOAuthProvider({
      server,
      url,
      settings: entry.oauth || {},
      store: auth.store,
      clientMetadataUrl: auth.clientMetadataUrl,
    });
    this.renewal = new TokenRenewal(this.provider, requestFetch);
    this.fetch = authorizedFetch(this.renewal, withDpopFromProvider(this.provider)(requestFetch));
    const provider = this.provider;
    this.transportProvider = new Proxy(provider, {
      get: (target, key) => {
        if (key === 'dpop') return undefined;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    this.renewal.relogin = (scope) => this.logIn(undefined, scope);
    this.renewal.canRelogin = () => this.canLogIn;
  }

  /** True when a login can happen here (someone shows the URL, or no browser is needed). */
  get canLogIn(): boolean {
    if (this.provider.machineLogin) return true;
    return this.auth.onAuthorizationUrl !== undefined && (this.auth.canShowLogin?.() ?? true);
  }

  /** Runs a login now (on demand, after "needs a login"). */
  async logIn(signal?: AbortSignal, scope?: string): Promise<void> {
    const show = this.auth.onAuthorizationUrl;
    await runLogin(this.provider, {
      onAuthorizationUrl: show ?? (() => undefined),
      fetchFn: requestFetch,
      challenge: scope ? { ...this.renewal.challenge, scope } : this.renewal.challenge,
      ...(signal ? { signal } : {}),
      ...(this.auth.loginTimeoutMs ? { timeoutMs: this.auth.loginTimeoutMs } : {}),
    });
  }
}

/**
 * OAuth for an (expanded) entry, when it applies: a remote server whose entry neither turns it off
 * (`oauth: false`) nor sends its own `Authorization` header.
 */
export function remoteAuthFor(
  server: string,
  entry: ServerEntry,
  auth: ConnectionAuth | undefined,
): RemoteAuth | undefined {
  if (!auth || isStdioServer(entry) || entry.oauth === false) return undefined;
  const headers = Object.keys(entry.headers ?? {}).map((key) => key.toLowerCase());
  if (headers.includes('authorization')) return undefined;
  return new RemoteAuth(server, entry.url, entry, auth);
}
