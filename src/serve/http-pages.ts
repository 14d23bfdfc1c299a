import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BearerTokens } from './bearer-tokens.js';
import { isAllowedRequest } from './host-check.js';

/**
 * Pages served beside an MCP endpoint on the same host and port (the gateway's dashboard). They get the
 * endpoint's protection: the same Host/Origin check, and — when the endpoint takes bearer tokens — the
 * same tokens, which a browser presents once (see {@link pageRequest}).
 */
export interface HttpPages {
  /** True for a path the pages serve (any other path than the MCP endpoint's gets its 404). */
  owns(pathname: string): boolean;
  /** Serves one request for a path it owns; `client` is the name of the token the browser logged in with. */
  serve(req: IncomingMessage, res: ServerResponse, url: URL, client: string | undefined): Promise<void>;
  /**
   * A secret that logs a browser in as client `local` (`/?key=…`), for `mcpkit dashboard`, which reads it
   * from the gateway's runtime file (readable by its user only). Unset: only tokens log in.
   */
  readonly loginKey?: string;
  /** The login key was used (a one-time key is replaced now). */
  keyUsed?(): void;
}

/** The cookie that carries a browser's session (never the token itself). */
const COOKIE = 'mcpkit_session';
/** How long a browser session lasts without use. */
const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** Sessions kept at most: each login makes one, and a login page reloaded in a loop must not grow memory. */
const MAX_SESSIONS = 1000;

/** Browser sessions of one endpoint: a random id in an HttpOnly, SameSite=Strict cookie → the client name. */
export class PageSessions {
  private readonly sessions = new Map<string, { client: string; seen: number }>();

  /** Starts a session for `client`; returns its id. */
  open(client: string): string {
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    const id = randomBytes(24).toString('base64url');
    this.sessions.set(id, { client, seen: Date.now() });
    return id;
  }

  /** The client of the session a request's cookie names, if it is live. */
  client(cookieHeader: string | undefined): string | undefined {
    const id = cookieValue(cookieHeader, COOKIE);
    if (id === undefined) return undefined;
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (Date.now() - session.seen > SESSION_IDLE_MS) {
      this.sessions.delete(id);
      return undefined;
    }
    session.seen = Date.now();
    // Most recently used last, so the oldest goes first when the map is full.
    this.sessions.delete(id);
    this.sessions.set(id, session);
    return session.client;
  }
}

/**
 * A request for one of the endpoint's pages. Refused with 403 for a foreign Host/Origin. With tokens: a
 * request is let in by its `Authorization: Bearer` header, its session cookie, or — once — a `?token=`
 * (or the pages' `?key=`) in the URL, which starts a session and redirects to the same URL without it,
 * so the secret leaves the address bar and the history. Anything else gets 401 and a line saying how.
 */
export async function pageRequest(
  req: IncomingMessage,
  res: ServerResponse,
  pages: HttpPages,
  options: { tokens?: BearerTokens | undefined; allowedHosts?: string[] | undefined; sessions: PageSessions },
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (!isAllowedRequest(req.headers, options.allowedHosts)) {
    res.writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden: Host or Origin not allowed\n');
    return;
  }
  const { tokens } = options;
  const headerClient = tokens?.match(req.headers.authorization);
  const cookieClient = options.sessions.client(req.headers.cookie);
  const login = loginOf(url, tokens, pages.loginKey);
  if (login !== undefined) {
    if (login === false) return unauthorized(res, 'the token (or key) in the address is not one of ours');
    const id = options.sessions.open(login);
    if (url.searchParams.has('key')) pages.keyUsed?.();
    url.searchParams.delete('token');
    url.searchParams.delete('key');
    res
      .writeHead(303, {
        location: `${url.pathname}${url.search}`,
        'set-cookie': `${COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/`,
        'cache-control': 'no-store',
      })
      .end();
    return;
  }
  const client = headerClient ?? cookieClient;
  if (tokens && client === undefined)
    return unauthorized(
      res,
      'open this address with ?token=<your bearer token> once (or run `mcpkit dashboard`)',
    );
  await pages.serve(req, res, url, client);
}

/** The client a `?token=` or `?key=` logs in, false for a wrong one, undefined when there is none. */
function loginOf(
  url: URL,
  tokens: BearerTokens | undefined,
  key: string | undefined,
): string | false | undefined {
  const token = url.searchParams.get('token');
  if (token !== null) return tokens?.match(`Bearer ${token}`) ?? false;
  const given = url.searchParams.get('key');
  if (given === null) return undefined;
  return key !== undefined && sameSecret(given, key) ? 'local' : false;
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function unauthorized(res: ServerResponse, why: string): void {
  res
    .writeHead(401, {
      'content-type': 'text/plain; charset=utf-8',
      'www-authenticate': 'Bearer realm="mcpkit"',
    })
    .end(`Unauthorized: ${why}\n`);
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
