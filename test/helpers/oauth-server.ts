import { createHash, createPublicKey, type JsonWebKey, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/server';
import Provider from 'oidc-provider';
import { createHttpHandler } from '../../src/serve/index.js';

/**
 * A real OAuth setup on 127.0.0.1: oidc-provider as the authorization server (PKCE, dynamic registration,
 * refresh-token rotation, short-lived access tokens, client credentials, RFC 8707 resources, DPoP) in front
 * of an mcpkit HTTP server that checks every token against it (and the DPoP proof of a bound one). The test plays the browser with
 * {@link browse}.
 */
export interface OAuthSetup {
  issuer: string;
  /** The MCP endpoint (the protected resource). */
  url: string;
  provider: Provider;
  /** Token requests by grant type, as the authorization server saw them. */
  grants: Record<string, number>;
  /** Authorization codes the authorization server issued (for the no-secrets-in-output check). */
  codes: string[];
  /** Seconds an access token lives (changeable between logins). */
  accessTokenTtl: number;
  /** A pre-registered client for the client-credentials grant. */
  machine: { clientId: string; clientSecret: string };
  close(): Promise<void>;
}

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

/** Starts the authorization server and the protected MCP server. */
export async function startOAuthSetup(): Promise<OAuthSetup> {
  const asServer = createServer();
  const rsServer = createServer();
  const asPort = await listen(asServer);
  const rsPort = await listen(rsServer);
  const issuer = `http://127.0.0.1:${asPort}`;
  const resource = `http://127.0.0.1:${rsPort}/mcp`;
  const machine = { clientId: 'machine', clientSecret: 'machine-secret-for-tests' };
  const setup = { accessTokenTtl: 3600 } as OAuthSetup;
  const provider = new Provider(issuer, {
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
    scopes: ['openid', 'offline_access', 'mcp:tools'],
    cookies: { keys: ['mcpkit-test-cookie-key'] },
    pkce: { required: () => true },
    rotateRefreshToken: true,
    ttl: {
      AccessToken: () => setup.accessTokenTtl,
      ClientCredentials: () => setup.accessTokenTtl,
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
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource) throw new Error(`unknown resource ${indicator}`);
          return {
            scope: 'mcp:tools',
            audience: resource,
            accessTokenFormat: 'opaque',
            accessTokenTTL: setup.accessTokenTtl,
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
  asServer.on('request', (req, res) => {
    if (req.url?.startsWith('/interaction/')) void interact(provider, req, res);
    else callback(req, res);
  });

  const mcp = createHttpHandler(() => {
    const server = new McpServer({ name: 'protected', version: '1.0.0' });
    server.registerTool('whoami', { description: 'says who answers' }, async () => ({
      content: [{ type: 'text', text: 'hello from the protected server' }],
    }));
    return server;
  });
  const metadataUrl = `http://127.0.0.1:${rsPort}/.well-known/oauth-protected-resource/mcp`;
  rsServer.on('request', (req, res) => {
    if (req.url === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ resource, authorization_servers: [issuer], scopes_supported: ['mcp:tools'] }));
      return;
    }
    void (async () => {
      const [, scheme, value] = /^(Bearer|DPoP) (.+)$/i.exec(req.headers.authorization ?? '') ?? [];
      const token = value
        ? ((await provider.AccessToken.find(value)) ?? (await provider.ClientCredentials.find(value)))
        : undefined;
      // A DPoP-bound token counts only with the DPoP scheme and a proof by the key it is bound to.
      const jkt = (token as { jkt?: string } | undefined)?.jkt;
      const bound = jkt
        ? scheme?.toLowerCase() === 'dpop' &&
          dpopProofValid(req, value as string, jkt, `http://127.0.0.1:${rsPort}${req.url}`)
        : scheme?.toLowerCase() === 'bearer';
      if (!token || token.isExpired || !bound) {
        res.writeHead(401, {
          'content-type': 'application/json',
          'www-authenticate': `Bearer error="invalid_token", resource_metadata="${metadataUrl}"`,
        });
        res.end(JSON.stringify({ error: 'invalid_token' }));
        return;
      }
      await mcp.handle(req, res);
    })().catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });

  return Object.assign(setup, {
    issuer,
    url: resource,
    provider,
    grants,
    codes,
    machine,
    close: async () => {
      await mcp.close();
      for (const server of [asServer, rsServer]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  });
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/** RFC 9449 §4.3, the checks a resource server makes: signature by the bound key, `htm`, `htu`, `ath`. */
function dpopProofValid(req: IncomingMessage, token: string, jkt: string, url: string): boolean {
  const proof = req.headers.dpop;
  if (typeof proof !== 'string') return false;
  const [head, body, signature] = proof.split('.');
  if (!head || !body || !signature) return false;
  const header = JSON.parse(Buffer.from(head, 'base64url').toString()) as {
    typ?: string;
    alg?: string;
    jwk?: JsonWebKey;
  };
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as {
    htm?: string;
    htu?: string;
    ath?: string;
  };
  const jwk = header.jwk;
  if (header.typ !== 'dpop+jwt' || header.alg !== 'ES256' || jwk?.kty !== 'EC') return false;
  const thumbprint = b64url(
    createHash('sha256')
      .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))
      .digest(),
  );
  const signed = verify(
    'sha256',
    Buffer.from(`${head}.${body}`),
    { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  return (
    signed &&
    thumbprint === jkt &&
    claims.htm === req.method &&
    claims.htu === url.split('?')[0] &&
    claims.ath === b64url(createHash('sha256').update(token).digest())
  );
}

/** The login and consent pages: the "user" logs in as `user-1` and grants what is asked. */
export async function interact(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
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
