import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

/**
 * The one OAuth authorization server of the tests: oidc-provider on 127.0.0.1 with PKCE, dynamic registration,
 * refresh-token rotation, a client-credentials client and RFC 8707 resources. Its access tokens are either
 * `opaque`, for the one `resource` given, found by the resource server in the provider itself (DPoP on), or
 * `jwt` (RFC 9068), for any resource asked for (`aud` = that resource), signed RS256 with a key made here —
 * what an mcpkit server in protected-resource mode validates (DPoP off). The test plays the browser with
 * {@link browse}.
 */
export interface AuthorizationServer {
  issuer: string;
  provider: Provider;
  /** Seconds an access token lives (changeable between grants). */
  accessTokenTtl: number;
  /** The pre-registered client for the client-credentials grant. */
  machine: { clientId: string; clientSecret: string };
  /** Token requests by grant type, as the server saw them. */
  grants: Record<string, number>;
  /** Authorization codes the server issued (for the no-secrets-in-output checks). */
  codes: string[];
  /** A client-credentials token for `resource`, with `scope` (default `mcp:tools`). */
  machineToken(resource: string, scope?: string): Promise<string>;
  close(): Promise<void>;
}

/** Opaque tokens for one resource, or JWTs for any. */
export type AuthorizationServerOptions = { tokens: 'opaque'; resource: string } | { tokens: 'jwt' };

export async function startAuthorizationServer(
  options: AuthorizationServerOptions,
): Promise<AuthorizationServer> {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const machine = { clientId: 'machine', clientSecret: 'machine-secret-for-tests' };
  const server = { accessTokenTtl: 3600 } as AuthorizationServer;
  const jwt = options.tokens === 'jwt';
  const signing = jwt ? await signingKey() : undefined;
  const provider = new Provider(issuer, {
    ...(signing ? { jwks: { keys: [signing] } } : {}),
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
    cookies: { keys: ['mcpkit-test-cookie-key'] },
    pkce: { required: () => true },
    rotateRefreshToken: true,
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
      dPoP: { enabled: !jwt },
      resourceIndicators:
        options.tokens === 'jwt'
          ? {
              enabled: true,
              useGrantedResource: () => true,
              getResourceServerInfo: (_ctx, indicator) => ({
                scope: 'mcp:tools mcp:admin',
                audience: indicator,
                accessTokenFormat: 'jwt',
                accessTokenTTL: server.accessTokenTtl,
                jwt: { sign: { alg: 'RS256' } },
              }),
            }
          : {
              enabled: true,
              defaultResource: () => options.resource,
              useGrantedResource: () => true,
              getResourceServerInfo: (_ctx, indicator) => {
                if (indicator !== options.resource) throw new Error(`unknown resource ${indicator}`);
                return {
                  scope: 'mcp:tools',
                  audience: options.resource,
                  accessTokenFormat: 'opaque',
                  accessTokenTTL: server.accessTokenTtl,
                };
              },
            },
    },
  });
  const grants: Record<string, number> = {};
  const codes: string[] = [];
  provider.on('grant.success', (ctx) => {
    const type = String(ctx.oidc.params?.grant_type);
    grants[type] = (grants[type] ?? 0) + 1;
  });
  provider.on('authorization_code.saved', (code) => codes.push(String(code.jti)));
  const callback = provider.callback();
  http.on('request', (req, res) => {
    if (req.url?.startsWith('/interaction/')) void interact(provider, req, res);
    else callback(req, res);
  });
  return Object.assign(server, {
    issuer,
    provider,
    machine,
    grants,
    codes,
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

/** An RS256 signing key made for this run. */
async function signingKey() {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: 'test-key', use: 'sig', alg: 'RS256' };
}

/** The login and consent pages: the "user" logs in as `user-1` and grants what is asked. */
async function interact(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const details = await provider.interactionDetails(req, res);
    const { prompt, params, session } = details;
    if (prompt.name === 'login') {
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: 'user-1' } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: session?.accountId ?? 'user-1', clientId: String(params.client_id) });
    if (!grant) throw new Error('no grant');
    const missing = prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
      grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  } catch (error) {
    res.writeHead(500).end(String(error));
  }
}

/**
 * Plays the user's browser: opens the authorization URL, keeps cookies, follows every redirect through
 * login and consent until the authorization server sends it back to mcpkit's loopback redirect.
 */
export async function browse(start: URL): Promise<void> {
  const jar = new Map<string, string>();
  let next = start;
  for (let hop = 0; hop < 20; hop++) {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(next, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (pair && eq > 0) jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    await response.text();
    const location = response.headers.get('location');
    if (!location) {
      if (response.status >= 400) throw new Error(`browser: HTTP ${response.status} at ${next.href}`);
      return;
    }
    next = new URL(location, next);
  }
  throw new Error('browser: too many redirects');
}
