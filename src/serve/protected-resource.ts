import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';

/** jose, loaded on the first token: `mcpkit/serve` (and every command that serves) starts without it. */
let joseModule: Promise<typeof import('jose')> | undefined;
const jose = () => {
  joseModule ??= import('jose');
  return joseModule;
};

/** Where RFC 9728 metadata is served: this, then the resource's path. */
export const PROTECTED_RESOURCE_METADATA = '/.well-known/oauth-protected-resource';

/** How long discovery and a JWKS fetch may take. */
const FETCH_TIMEOUT_MS = 10_000;

/** Options of a {@link ProtectedResource}. */
export interface ProtectedResourceOptions {
  /** The authorization server's issuer URL: tokens must carry it as `iss`; its metadata names the JWKS. */
  issuer: string;
  /**
   * The public URL of the MCP endpoint (`https://mcp.example.com/mcp`): the resource tokens must be issued
   * for (`aud`) and the `resource` of the metadata. Unset: call {@link ProtectedResource.serveAt} once
   * listening.
   */
  resource?: string | URL;
  /** The endpoint's path on this server (default `/mcp`); an endpoint below it is its own resource. */
  path?: string;
  /** The `aud` tokens must carry instead of the resource URL (an authorization server's API identifier). */
  audience?: string;
  /** Scopes every request's token must have (else 403 `insufficient_scope`); advertised in the metadata. */
  scopes?: readonly string[];
  /** The authorization server's JWKS URL; default: from its RFC 8414 / OpenID metadata. */
  jwksUri?: string;
  /** Told when the authorization server's keys cannot be found (requests get 500 meanwhile). */
  onError?: (error: Error) => void;
}

/**
 * An mcpkit HTTP server as an OAuth 2.0 protected resource (the MCP authorization spec): serves RFC 9728
 * metadata naming the external authorization server, and checks each request's `Authorization: Bearer` JWT —
 * signature by the authorization server's JWKS (jose), issuer, audience (the resource URL, RFC 8707), expiry
 * and scopes. A refusal is the SDK's answer: 401 `invalid_token` or 403 `insufficient_scope`, with
 * `WWW-Authenticate: Bearer … resource_metadata="…"` so a standard client finds where to log in.
 */
export class ProtectedResource {
  private resource: string | undefined;
  private keys: Promise<JWTVerifyGetKey> | undefined;
  private readonly path: string;

  constructor(private readonly options: ProtectedResourceOptions) {
    this.path = options.path ?? '/mcp';
    if (options.resource !== undefined) this.serveAt(options.resource);
  }

  /** The public URL of the main endpoint, when it is known only once listening. */
  serveAt(url: string | URL): void {
    this.resource = new URL(url).href.replace(/\/$/u, '');
  }

  /** The resource URL of an endpoint path: the main one, or below it (`/mcp/review`). */
  resourceFor(path: string): string | undefined {
    if (this.resource === undefined) return undefined;
    return this.resource + (path.startsWith(this.path) ? path.slice(this.path.length) : '');
  }

  /** The RFC 9728 metadata answer when `pathname` asks for it (GET), else undefined. */
  metadataResponse(pathname: string, method: string): Response | undefined {
    if (pathname !== PROTECTED_RESOURCE_METADATA && !pathname.startsWith(`${PROTECTED_RESOURCE_METADATA}/`))
      return undefined;
    const suffix = pathname.slice(PROTECTED_RESOURCE_METADATA.length);
    const at = suffix === '' ? 0 : suffix.indexOf(this.path);
    const path = suffix === '' ? this.path : at === -1 ? undefined : suffix.slice(at);
    const resource = path === undefined || !ownPath(path, this.path) ? undefined : this.resourceFor(path);
    if (resource === undefined) return new Response(null, { status: 404 });
    if (method !== 'GET' && method !== 'HEAD')
      return new Response(null, { status: 405, headers: { allow: 'GET' } });
    const { scopes } = this.options;
    return Response.json({
      resource,
      authorization_servers: [this.options.issuer],
      bearer_methods_supported: ['header'],
      ...(scopes && scopes.length > 0 ? { scopes_supported: scopes } : {}),
    });
  }

  /**
   * Checks a request to the endpoint at `path`: what its token says (client, scopes, expiry) when it is good,
   * else the 401/403 answer (500 when the authorization server's keys cannot be fetched).
   */
  async authorize(authorization: string | null | undefined, path: string): Promise<AuthInfo | Response> {
    const resource = this.resourceFor(path);
    const requiredScopes = this.options.scopes ? [...this.options.scopes] : undefined;
    const challenge = {
      ...(requiredScopes ? { requiredScopes } : {}),
      ...(resource ? { resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(resource)) } : {}),
    };
    try {
      return await verifyBearerToken(authorization, {
        verifier: { verifyAccessToken: (token) => this.verify(token, resource) },
        ...challenge,
      });
    } catch (error) {
      return bearerAuthChallengeResponse(error, challenge);
    }
  }

  private async verify(token: string, resource: string | undefined): Promise<AuthInfo> {
    const audience = this.options.audience ?? resource;
    if (audience === undefined) throw new OAuthError(OAuthErrorCode.ServerError, 'not serving yet');
    const { errors, jwtVerify } = await jose();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await this.jwks(), {
        issuer: this.options.issuer,
        audience,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      if (error instanceof errors.JOSEError && !(error instanceof errors.JWKSTimeout))
        throw new OAuthError(OAuthErrorCode.InvalidToken, `the token is not valid here: ${error.message}`);
      throw new OAuthError(
        OAuthErrorCode.ServerError,
        `cannot check tokens: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    // A token bound to a key (DPoP, mTLS) must be presented with a proof, which is not checked here.
    if (payload.cnf !== undefined)
      throw new OAuthError(OAuthErrorCode.InvalidToken, 'sender-constrained (DPoP) tokens are not accepted');
    const clientId = [payload.client_id, payload.azp, payload.sub].find((v) => typeof v === 'string');
    return {
      token,
      clientId: (clientId as string | undefined) ?? '',
      scopes: scopesOf(payload),
      expiresAt: payload.exp as number,
    };
  }

  /** The authorization server's keys, found once (a failure is retried on the next request). */
  private jwks(): Promise<JWTVerifyGetKey> {
    this.keys ??= this.discover().catch((error: Error) => {
      this.keys = undefined;
      this.options.onError?.(error);
      throw error;
    });
    return this.keys;
  }

  private async discover(): Promise<JWTVerifyGetKey> {
    const { createRemoteJWKSet } = await jose();
    const options = { timeoutDuration: FETCH_TIMEOUT_MS };
    if (this.options.jwksUri) return createRemoteJWKSet(new URL(this.options.jwksUri), options);
    const issuer = new URL(this.options.issuer);
    const path = issuer.pathname.replace(/\/$/u, '');
    // RFC 8414 inserts its well-known path before the issuer's; OpenID Connect Discovery appends its own.
    const candidates = [
      new URL(`/.well-known/oauth-authorization-server${path}`, issuer),
      new URL(`${path}/.well-known/openid-configuration`, issuer),
    ];
    for (const url of candidates) {
      const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) }).catch(
        () => undefined,
      );
      if (!response?.ok) continue;
      const metadata = (await response.json().catch(() => ({}))) as { issuer?: unknown; jwks_uri?: unknown };
      if (metadata.issuer !== this.options.issuer || typeof metadata.jwks_uri !== 'string') continue;
      return createRemoteJWKSet(new URL(metadata.jwks_uri), options);
    }
    throw new Error(
      `cannot find the keys of ${this.options.issuer}: no RFC 8414 or OpenID metadata there names a jwks_uri for that issuer; check the issuer URL (exactly as the server states it) and that it is reachable`,
    );
  }
}

function ownPath(path: string, main: string): boolean {
  return path === main || path.startsWith(`${main}/`);
}

/** RFC 9068 `scope` (space-separated) or the common `scp` array. */
function scopesOf(payload: JWTPayload): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  return Array.isArray(payload.scp) ? payload.scp.filter((s): s is string => typeof s === 'string') : [];
}
