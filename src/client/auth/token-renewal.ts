import {
  auth,
  extractWWWAuthenticateParams,
  type FetchLike,
  OAuthError,
  OAuthErrorCode,
  refreshAuthorization,
} from '@modelcontextprotocol/client';
import type { StoreOAuthProvider } from './oauth-provider.js';
import { currentTokens, type SavedTokens } from './token-store.js';

/** Refresh this long before the access token expires (at most), so no request goes out with a dying token. */
export const REFRESH_AHEAD_MS = 60_000;

/** What the server's last 401/403 asked for (`WWW-Authenticate`), for the login that follows. */
export interface AuthChallenge {
  resourceMetadataUrl?: URL;
  scope?: string;
}

function expiresSoon(tokens: SavedTokens, now = Date.now()): boolean {
  if (typeof tokens.expires_at !== 'number') return false;
  // A short-lived token (minutes) is refreshed in its last quarter, not for most of its life.
  const lifetime =
    typeof tokens.expires_in === 'number' ? tokens.expires_in * 1000 : Number.POSITIVE_INFINITY;
  return tokens.expires_at - now < Math.min(REFRESH_AHEAD_MS, lifetime / 4);
}

/**
 * Keeps one server's access token fresh: refreshed ahead of expiry and after a 401, one refresh at a time
 * per process (concurrent requests share it) and across processes (the store's exclusive lock; whoever
 * comes second finds the new token and does not refresh again). A refused refresh forgets the tokens and
 * marks the login expired.
 */
export class TokenRenewal {
  private renewing: Promise<string | undefined> | undefined;
  /** The last challenge the server sent (scope, resource metadata). */
  challenge: AuthChallenge = {};
  /** A new login (for more scope, SEP-2350 step-up, or after a refused token), when one can happen here. */
  relogin: ((scope?: string) => Promise<void>) | undefined;
  /** Whether a login can happen now. */
  canRelogin: () => boolean = () => this.relogin !== undefined;
  private loggingIn: Promise<void> | undefined;

  constructor(
    private readonly provider: StoreOAuthProvider,
    private readonly fetchFn: FetchLike,
  ) {}

  /** The access token to send now: the stored one, refreshed first when it is about to expire. */
  async current(): Promise<string | undefined> {
    const tokens = currentTokens(await this.provider.record());
    if (!tokens) return undefined;
    if (!expiresSoon(tokens)) return tokens.access_token;
    return (await this.renew(tokens.access_token)) ?? tokens.access_token;
  }

  /** After `rejected` got a 401: a new access token, or undefined when none can be had without a login. */
  renew(rejected: string | undefined): Promise<string | undefined> {
    this.renewing ??= this.provider.options.store
      .exclusive(this.provider.url, () => this.renewNow(rejected))
      .finally(() => {
        this.renewing = undefined;
      });
    return this.renewing;
  }

  /**
   * After a 403 `insufficient_scope`: one login for the granted scopes plus the asked-for ones (shared by
   * concurrent requests). False when no login can happen here; the SDK then reports the 403.
   */
  async stepUpFor(response: Response): Promise<boolean> {
    const { error, scope } = extractWWWAuthenticateParams(response);
    if (error !== 'insufficient_scope' || !scope) return false;
    const granted = currentTokens(await this.provider.record())?.scope ?? '';
    const union = [...new Set([...granted.split(' '), ...scope.split(' ')].filter(Boolean))].join(' ');
    return this.logInAgain(union);
  }

  /** A new login now, shared by concurrent requests; false when none can happen here. */
  async logInAgain(scope?: string): Promise<boolean> {
    const relogin = this.relogin;
    if (!relogin) return false;
    if (!this.canRelogin()) return false;
    this.loggingIn ??= relogin(scope).finally(() => {
      this.loggingIn = undefined;
    });
    await this.loggingIn;
    return true;
  }

  /** Notes what a 401/403 answer asks for. */
  noteChallenge(response: Response): void {
    if (!response.headers.has('www-authenticate')) return;
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    this.challenge = {
      ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
      ...(scope ? { scope } : this.challenge.scope ? { scope: this.challenge.scope } : {}),
    };
  }

  private async renewNow(rejected: string | undefined): Promise<string | undefined> {
    const record = await this.provider.record();
    const tokens = currentTokens(record);
    // Another request or process renewed it while we waited for the lock.
    if (tokens && tokens.access_token !== rejected && !expiresSoon(tokens)) return tokens.access_token;
    if (this.provider.machineLogin) {
      const result = await auth(this.provider, {
        serverUrl: this.provider.url,
        fetchFn: this.fetchFn,
        ...(this.challenge.scope ? { scope: this.challenge.scope } : {}),
      });
      return result === 'AUTHORIZED' ? currentTokens(await this.provider.record())?.access_token : undefined;
    }
    const discovery = record?.discovery;
    const issuer = record?.issuer;
    if (!tokens?.refresh_token || !discovery || !issuer) return undefined;
    const clientInformation = await this.provider.clientInformation({ issuer }).catch(() => undefined);
    if (!clientInformation) return undefined;
    const dpop = await this.provider.dpop();
    let refreshed: Awaited<ReturnType<typeof refreshAuthorization>>;
    try {
      refreshed = await refreshAuthorization(discovery.authorizationServerUrl, {
        ...(discovery.authorizationServerMetadata ? { metadata: discovery.authorizationServerMetadata } : {}),
        clientInformation,
        refreshToken: tokens.refresh_token,
        ...(record.resource ? { resource: new URL(record.resource) } : {}),
        ...(this.provider.addClientAuthentication
          ? { addClientAuthentication: this.provider.addClientAuthentication }
          : {}),
        ...(dpop ? { dpop } : {}),
        fetchFn: this.fetchFn,
      });
    } catch (error) {
      if (error instanceof OAuthError && error.code !== OAuthErrorCode.ServerError) {
        // Revoked, expired or already rotated away: only a new login helps.
        this.provider.loginReason = 'expired';
        await this.provider.forgetTokens();
        return undefined;
      }
      throw error;
    }
    // Saved before it is used: a rotated refresh token must not be lost if we die right after.
    await this.provider.saveTokens({ ...refreshed, issuer }, { issuer });
    return refreshed.access_token;
  }
}

/**
 * The fetch of a remote server's transport with the renewal in front: every request that carries our
 * bearer token gets the freshest one, and a 401 is answered by one shared refresh and one retry. What
 * still fails goes back to the SDK (its `onUnauthorized` leads to a login, or to "needs a login").
 */
export function authorizedFetch(renewal: TokenRenewal, base: FetchLike): FetchLike {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    const bearer = headers.get('authorization')?.match(/^Bearer (.+)$/i)?.[1];
    const mcpRequest =
      headers.has('mcp-protocol-version') || (headers.get('accept') ?? '').includes('text/event-stream');
    if (bearer === undefined) {
      const response = await base(input, init);
      if (mcpRequest && (response.status === 401 || response.status === 403)) renewal.noteChallenge(response);
      return response;
    }
    const fresh = (await renewal.current()) ?? bearer;
    headers.set('authorization', `Bearer ${fresh}`);
    const response = await base(input, { ...init, headers });
    if (response.status === 403) {
      renewal.noteChallenge(response);
      // One step-up per request: a second 403 goes back to the SDK, which gives up (the retry limit).
      if (!(await renewal.stepUpFor(response))) return response;
      await response.body?.cancel().catch(() => undefined);
      const stepped = await renewal.current();
      if (stepped === undefined) return response;
      headers.set('authorization', `Bearer ${stepped}`);
      return base(input, { ...init, headers });
    }
    if (response.status !== 401) return response;
    renewal.noteChallenge(response);
    let renewed = await renewal.renew(fresh);
    // No refresh helps (none held, refused, or the server moved to another authorization server): a new
    // login where one can happen; otherwise the SDK's answer ("needs a login").
    if ((renewed === undefined || renewed === fresh) && (await renewal.logInAgain(renewal.challenge.scope)))
      renewed = await renewal.current();
    if (renewed === undefined || renewed === fresh) return response;
    await response.body?.cancel().catch(() => undefined);
    headers.set('authorization', `Bearer ${renewed}`);
    return base(input, { ...init, headers });
  };
}
