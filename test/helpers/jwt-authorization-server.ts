import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { interact } from './oauth-server.js';

/**
 * oidc-provider on 127.0.0.1 as an authorization server that issues JWT access tokens (RFC 9068) for any
 * resource asked for (RFC 8707: `aud` = that resource), signed RS256 with a key made here: what an mcpkit
 * server in protected-resource mode validates. PKCE, dynamic registration and a client-credentials client;
 * DPoP off (bearer tokens). The login pages are the ones of `oauth-server.ts`; play them with `browse`.
 */
export interface JwtAuthorizationServer {
  issuer: string;
  provider: Provider;
  /** Seconds an access token lives (changeable between grants). */
  accessTokenTtl: number;
  /** A client-credentials token for `resource`, with `scope` (default `mcp:tools`). */
  machineToken(resource: string, scope?: string): Promise<string>;
  close(): Promise<void>;
}

export async function startJwtAuthorizationServer(): Promise<JwtAuthorizationServer> {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signing = { ...(await exportJWK(privateKey)), kid: 'test-key', use: 'sig', alg: 'RS256' };
  const machine = { clientId: 'machine', clientSecret: 'machine-secret-for-jwt-tests' };
  const server = { accessTokenTtl: 3600 } as JwtAuthorizationServer;
  const provider = new Provider(issuer, {
    jwks: { keys: [signing] },
    clients: [
      {
        client_id: machine.clientId,
        client_secret: machine.clientSecret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    scopes: ['openid', 'offline_access', 'mcp:tools', 'mcp:admin'],
    cookies: { keys: ['mcpkit-jwt-test-cookie-key'] },
    pkce: { required: () => true },
    ttl: {
      AccessToken: () => server.accessTokenTtl,
      ClientCredentials: () => server.accessTokenTtl,
      RefreshToken: 86_400,
      Interaction: 600,
      Session: 3600,
      Grant: 86_400,
      AuthorizationCode: 60,
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      dPoP: { enabled: false },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => ({
          scope: 'mcp:tools mcp:admin',
          audience: indicator,
          accessTokenFormat: 'jwt',
          accessTokenTTL: server.accessTokenTtl,
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  const callback = provider.callback();
  http.on('request', (req, res) => {
    if (req.url?.startsWith('/interaction/')) void interact(provider, req, res);
    else callback(req, res);
  });
  return Object.assign(server, {
    issuer,
    provider,
    async machineToken(resource: string, scope = 'mcp:tools') {
      const basic = Buffer.from(`${machine.clientId}:${machine.clientSecret}`).toString('base64');
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`no token: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    close: async () => {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  });
}
