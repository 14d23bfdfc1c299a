import { randomBytes } from 'node:crypto';
import {
  type AddClientAuthentication,
  createPrivateKeyJwtAuth,
  type DpopSession,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { OAuthSettings } from '../../config/index.js';
import { dpopAlgorithm, dpopSession } from './dpop-key.js';
import { type LoginReason, NeedsLoginError } from './needs-login.js';
import { currentTokens, type SavedTokens, type ServerAuthRecord, type TokenStore } from './token-store.js';

/** What a provider needs: the server, its settings, the store. */
export interface ProviderOptions {
  /** The server's name, for messages ("run mcpkit auth login <name>"). */
  server: string;
  /** The server's (expanded) URL: the store's key. */
  url: string;
  settings: OAuthSettings;
  store: TokenStore;
  /** mcpkit's Client ID Metadata Document URL, when the entry names none. */
  clientMetadataUrl?: string | undefined;
}

/** A login in progress: where the authorization server sends the browser back, and who shows the URL. */
export interface LoginSession {
  redirectUrl: string;
  showUrl(url: URL): Promise<void>;
}

const CONNECT_REDIRECT = 'http://127.0.0.1/callback';

/**
 * The SDK's OAuthClientProvider over mcpkit's token store. Outside a login (`connect` mode) it never sends
 * anyone to a browser: where the SDK would, it throws {@link NeedsLoginError}, and it registers no client
 * (a registration belongs to the redirect URI of a real login). During {@link beginLogin} it hands the
 * authorization URL to the session.
 */
export class StoreOAuthProvider implements OAuthClientProvider {
  private session: LoginSession | undefined;
  private verifier: string | undefined;
  private expectedState: string | undefined;
  private dpopPromise: Promise<DpopSession | undefined> | undefined;
  /** Set when a refresh was refused: the next "needs a login" says the login expired. */
  loginReason: LoginReason = 'none';

  /** mcpkit's Client ID Metadata Document URL (the entry's, else the Runtime's). */
  readonly clientMetadataUrl?: string;
  /** `private_key_jwt` at the token endpoint, when the entry has a private key. */
  readonly addClientAuthentication?: AddClientAuthentication;

  constructor(readonly options: ProviderOptions) {
    const cimd = options.settings.clientMetadataUrl ?? options.clientMetadataUrl;
    if (cimd) this.clientMetadataUrl = cimd;
    const { privateKey, clientId } = options.settings;
    if (privateKey && clientId) {
      this.addClientAuthentication = createPrivateKeyJwtAuth({
        issuer: clientId,
        subject: clientId,
        privateKey,
        alg: options.settings.signingAlgorithm ?? 'ES256',
      });
    }
  }

  get url(): string {
    return this.options.url;
  }

  get settings(): OAuthSettings {
    return this.options.settings;
  }

  /** Client credentials: a machine login, no browser, no redirect. */
  get machineLogin(): boolean {
    return this.settings.grant === 'client_credentials';
  }

  get redirectUrl(): string | undefined {
    if (this.machineLogin) return undefined;
    return this.session?.redirectUrl ?? CONNECT_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    const method =
      this.settings.tokenEndpointAuthMethod ?? (this.settings.clientSecret ? 'client_secret_basic' : 'none');
    return {
      client_name: 'mcpkit',
      redirect_uris: this.machineLogin ? [] : [this.redirectUrl ?? CONNECT_REDIRECT],
      grant_types: this.machineLogin ? ['client_credentials'] : ['authorization_code', 'refresh_token'],
      response_types: this.machineLogin ? [] : ['code'],
      token_endpoint_auth_method: method,
      application_type: 'native',
      ...(this.settings.scope ? { scope: this.settings.scope } : {}),
    } as OAuthClientMetadata;
  }

  /** Starts a login: the SDK's redirect goes to `session` until {@link endLogin}. */
  beginLogin(session: LoginSession): void {
    this.session = session;
  }

  endLogin(): void {
    this.session = undefined;
    this.verifier = undefined;
  }

  /** The `state` the callback must carry (set when the authorization URL was made). */
  get loginState(): string | undefined {
    return this.expectedState;
  }

  state(): string {
    this.expectedState = randomBytes(24).toString('base64url');
    return this.expectedState;
  }

  async clientInformation(
    ctx?: OAuthClientInformationContext,
  ): Promise<StoredOAuthClientInformation | undefined> {
    const { clientId, clientSecret, tokenEndpointAuthMethod } = this.settings;
    if (clientId) {
      return {
        client_id: clientId,
        // Stamped with the issuer asked about: a configured client is meant for the server's own.
        ...(ctx?.issuer ? { issuer: ctx.issuer } : {}),
        ...(clientSecret ? { client_secret: clientSecret } : {}),
        ...(tokenEndpointAuthMethod && tokenEndpointAuthMethod !== 'private_key_jwt'
          ? { token_endpoint_auth_method: tokenEndpointAuthMethod }
          : {}),
      };
    }
    const record = await this.record();
    const issuer = ctx?.issuer ?? record?.issuer;
    const client = issuer ? record?.issuers[issuer]?.client : undefined;
    if (client && this.session && !this.fitsSession(client)) return undefined;
    if (!client && !this.session && !this.machineLogin) throw this.needsLogin();
    return client;
  }

  async saveClientInformation(client: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext) {
    if (this.settings.clientId) return;
    const issuer = ctx?.issuer ?? client.issuer;
    if (!issuer) return;
    await this.change((record) => {
      record.issuers[issuer] = { ...record.issuers[issuer], client };
      return record;
    });
  }

  async tokens(ctx?: OAuthClientInformationContext): Promise<StoredOAuthTokens | undefined> {
    const record = await this.record();
    if (!ctx) return currentTokens(record);
    return record?.issuers[ctx.issuer]?.tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): Promise<void> {
    const issuer = ctx?.issuer ?? tokens.issuer;
    if (!issuer) return;
    const saved: SavedTokens = { ...tokens };
    if (typeof tokens.expires_in === 'number') saved.expires_at = Date.now() + tokens.expires_in * 1000;
    await this.change((record) => {
      const previous = record.issuers[issuer]?.tokens;
      // A refresh answer without a new refresh token keeps the old one (RFC 6749 §6).
      if (!saved.refresh_token && previous?.refresh_token) saved.refresh_token = previous.refresh_token;
      record.issuers[issuer] = { ...record.issuers[issuer], tokens: saved };
      record.issuer = issuer;
      return record;
    });
    this.loginReason = 'none';
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (!this.session) throw this.needsLogin();
    await this.session.showUrl(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no login in progress (no PKCE code verifier)');
    return this.verifier;
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (!this.machineLogin) return undefined;
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    const wanted = scope ?? this.settings.scope;
    if (wanted) params.set('scope', wanted);
    return params;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') {
      this.verifier = undefined;
      return;
    }
    await this.change((record) => {
      if (scope === 'all') return undefined;
      if (scope === 'discovery') delete record.discovery;
      // A new login gets a new DPoP key; old tokens bound to the old one go with it.
      if (scope === 'tokens') delete record.dpopKey;
      for (const issuer of Object.values(record.issuers)) {
        if (scope === 'client') delete issuer.client;
        if (scope === 'tokens') delete issuer.tokens;
      }
      return record;
    });
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.change((record) => ({ ...record, discovery: state }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.record())?.discovery;
  }

  async saveResourceUrl(resource: string): Promise<void> {
    await this.change((record) => ({ ...record, resource }));
  }

  async resourceUrl(): Promise<string | undefined> {
    return (await this.record())?.resource;
  }

  /**
   * DPoP (RFC 9449) when the authorization server offers it: one session per provider, its key kept in the
   * store so every process presents tokens with the key they are bound to.
   */
  dpop(): Promise<DpopSession | undefined> {
    this.dpopPromise ??= (async () => {
      const record = await this.record();
      const metadata = record?.discovery?.authorizationServerMetadata as
        | { dpop_signing_alg_values_supported?: unknown }
        | undefined;
      const supported = metadata?.dpop_signing_alg_values_supported;
      const alg = Array.isArray(supported) ? dpopAlgorithm(supported.map(String)) : undefined;
      if (!alg) return undefined;
      return dpopSession(record?.dpopKey, alg, (dpopKey) =>
        this.change((r) => ({ ...r, dpopKey })).then(() => undefined),
      );
    })();
    const pending = this.dpopPromise;
    // Not known yet (before discovery): ask again next time.
    void pending.then((session) => {
      if (!session && this.dpopPromise === pending) this.dpopPromise = undefined;
    });
    return pending;
  }

  /** The stored record of this server. */
  record(): Promise<ServerAuthRecord | undefined> {
    return this.options.store.read(this.url);
  }

  /** Forgets the tokens (a new login starts from scratch; the client registration is kept). */
  async forgetTokens(): Promise<void> {
    await this.invalidateCredentials('tokens');
  }

  needsLogin(): NeedsLoginError {
    return new NeedsLoginError(this.options.server, this.loginReason);
  }

  private change(edit: (record: ServerAuthRecord) => ServerAuthRecord | undefined) {
    return this.options.store.update(this.url, (record) => {
      const next = edit(record);
      if (next) next.name = this.options.server;
      return next;
    });
  }

  /** A registered client fits a login when its redirect URI is the login's (the loopback port may differ). */
  private fitsSession(client: StoredOAuthClientInformation): boolean {
    const uris = (client as { redirect_uris?: unknown }).redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0) return true;
    return uris.includes(this.session?.redirectUrl);
  }
}
