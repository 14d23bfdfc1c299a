import { createHash, createPublicKey, type JsonWebKey, verify } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/server';
import type Provider from 'oidc-provider';
import { createHttpHandler } from '../../src/serve/index.js';
import { startAuthorizationServer } from './authorization-server.js';

export { browse } from './authorization-server.js';

/**
 * A real OAuth setup on 127.0.0.1: the tests' authorization server (helpers/authorization-server.ts, opaque
 * tokens for this one resource, DPoP on) in front of an mcpkit HTTP server that checks every token against it
 * (and the DPoP proof of a bound one). The test plays the browser with {@link browse}.
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

/** Starts the authorization server and the protected MCP server. */
export async function startOAuthSetup(): Promise<OAuthSetup> {
  const rsServer = createServer();
  await new Promise<void>((resolve) => rsServer.listen(0, '127.0.0.1', resolve));
  const rsPort = (rsServer.address() as AddressInfo).port;
  const resource = `http://127.0.0.1:${rsPort}/mcp`;
  const as = await startAuthorizationServer({ tokens: 'opaque', resource });
  const { issuer, provider } = as;

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

  return {
    issuer,
    url: resource,
    provider,
    grants: as.grants,
    codes: as.codes,
    machine: as.machine,
    // The token lifetime is the authorization server's: a setter, so a test's change reaches it.
    get accessTokenTtl() {
      return as.accessTokenTtl;
    },
    set accessTokenTtl(seconds: number) {
      as.accessTokenTtl = seconds;
    },
    close: async () => {
      await mcp.close();
      rsServer.closeAllConnections();
      await new Promise((resolve) => rsServer.close(resolve));
      await as.close();
    },
  };
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
