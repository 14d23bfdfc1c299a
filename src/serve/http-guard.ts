import type { AuthInfo } from '@modelcontextprotocol/server';
import type { BearerTokens } from './bearer-tokens.js';
import { checkFrame, type FrameCheck } from './frames.js';
import { drainingResponse, probeResponse } from './health.js';
import { isAllowedRequest } from './host-check.js';
import { rpcError } from './http-answers.js';
import type { Incoming } from './http-incoming.js';
import { type HttpPages, type PageSessions, pageRequest } from './http-pages.js';
import type { ProtectedResource } from './protected-resource.js';

/** What the guard needs of the endpoint's options. */
export interface GuardOptions {
  path: string;
  maxBodyBytes: number;
  allowedHosts?: string[] | undefined;
  tokens?: BearerTokens | undefined;
  protectedResource?: ProtectedResource | undefined;
  pages?: HttpPages | undefined;
  pageSessions: PageSessions;
  ready?: (() => boolean) | undefined;
  draining: () => boolean;
}

/** A request the guard let through: who sent it, and its frame checked (a POST's; undefined otherwise). */
export interface Admitted {
  incoming: Incoming;
  authInfo: AuthInfo | undefined;
  /** The body as read (for a frame whose params fail our check but are the SDK's to answer). */
  text: string | undefined;
  checked: FrameCheck | undefined;
}

/** The guard answered on node's response itself (a page beside the endpoint). */
export const WRITTEN = Symbol('written');

/**
 * The first half of serve/'s one request path: every check a request passes, each exactly once and in this
 * order — probes and draining, pages beside the endpoint, one Host header, Host/Origin (DNS rebinding),
 * OAuth metadata and the path, credentials (before a byte of the body is read), the body's size, and the
 * frame itself. Returns the refusal, or the request admitted for the router.
 */
export async function guard(
  incoming: Incoming,
  options: GuardOptions,
): Promise<Response | Admitted | typeof WRITTEN> {
  const { pathname, method } = incoming;
  const probe = probeResponse(pathname, options.ready, options.draining());
  if (probe) return probe;
  if (options.draining()) return drainingResponse();
  if (incoming.hostHeaders > 1) return rpcError(400, null, -32600, 'Bad Request: more than one Host header');
  const { pages, node } = incoming.node && options.pages ? { pages: options.pages, node: incoming.node } : {};
  if (pages && node && pathname !== options.path && pages.owns(pathname)) {
    await pageRequest(node.req, node.res, pages, { ...options, sessions: options.pageSessions });
    return WRITTEN;
  }
  const headers = { host: incoming.header('host'), origin: incoming.header('origin') };
  if (!isAllowedRequest(headers, options.allowedHosts))
    return rpcError(403, null, -32000, 'Forbidden: Host or Origin not allowed');
  const metadata = options.protectedResource?.metadataResponse(pathname, method);
  if (metadata) return metadata;
  if (pathname !== options.path)
    return rpcError(404, null, -32000, `Not Found: MCP is served on ${options.path}`);
  const authInfo = await authOf(incoming.header('authorization'), pathname, options);
  if (authInfo instanceof Response) return authInfo;
  if (method !== 'POST') return { incoming, authInfo, text: undefined, checked: undefined };
  const text = await incoming.body(options.maxBodyBytes);
  if (text === undefined) return tooLarge();
  return { incoming, authInfo, text, checked: checkFrame(text) };
}

/**
 * Who the request's credentials name: the bearer token's name, or the OAuth token's client and scopes —
 * for the server's handlers (`ctx.http.authInfo`) and the intercept; the 401 when the token is missing or
 * wrong. A static token itself is never passed on.
 */
async function authOf(
  authorization: string | undefined,
  pathname: string,
  options: GuardOptions,
): Promise<AuthInfo | Response | undefined> {
  if (options.tokens) {
    const name = options.tokens.match(authorization);
    if (name !== undefined) return { token: '', clientId: name, scopes: [] };
    // RFC 6750 §3.1: no credentials → the bare challenge; wrong ones → invalid_token.
    const challenge =
      authorization === undefined ? 'Bearer realm="mcpkit"' : 'Bearer realm="mcpkit", error="invalid_token"';
    return rpcError(401, null, -32001, 'Unauthorized: a valid bearer token is required', {
      'www-authenticate': challenge,
    });
  }
  return options.protectedResource?.authorize(authorization, pathname);
}

/** 413 with `Connection: close`: the rest of the upload is not read, so the connection cannot be reused. */
const tooLarge = () => rpcError(413, null, -32600, 'Request body too large', { connection: 'close' });
