import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProtocolError } from '@modelcontextprotocol/server';
import { PACKAGE_VERSION } from '../../../internal/package-version.js';
import type { HttpPages } from '../../../serve/http-pages.js';
import type { Catalog } from '../../catalog.js';
import type { Gateway } from '../../gateway.js';
import { profileFilter } from '../../profiles.js';
import { type AssetFile, dashboardAsset } from './assets.js';
import { CallFeed } from './call-feed.js';
import type { LogBuffer } from './log-buffer.js';

/** Options for {@link Dashboard}. */
export interface DashboardOptions {
  /** The gateway's own log (what it writes to stderr), for the log panel. */
  logs?: LogBuffer;
  /** Show tool calls' arguments and results (secrets masked); default off: names, outcomes, durations only. */
  payloads?: boolean;
  /** The profile the gateway serves, shown in the header. */
  profile?: string;
}

const API = '/dashboard/api/';
/** How often the upstreams and tools are compared with what the live pages were last sent. */
const STATE_POLL_MS = 500;
const MAX_CALL_BODY = 1024 * 1024;

/**
 * The gateway's web dashboard, served beside its MCP endpoint (`/`, `/dashboard/…`): upstreams and
 * their state, every tool with its schema and pin, recent calls and the gateway's log live over SSE, a
 * form to call a tool and a "trust" action for a changed pin. Static files come from the package
 * (`assets/dashboard/`); the page needs no CDN and no build step.
 */
export class Dashboard implements HttpPages {
  private readonly feed: CallFeed;
  private readonly unsubscribe: () => void;
  private readonly streams = new Set<ServerResponse>();
  private poll: NodeJS.Timeout | undefined;
  private lastState = '';
  private key = randomBytes(24).toString('base64url');
  private readonly startedAt = new Date().toISOString();

  constructor(
    private readonly gateway: Gateway,
    private readonly options: DashboardOptions = {},
  ) {
    this.feed = new CallFeed(options.payloads ?? false);
    this.unsubscribe = gateway.calls.subscribe(this.feed);
  }

  /** The current one-time login key (`/?key=…`); a new one replaces it once it is used. */
  get loginKey(): string {
    return this.key;
  }

  /** Called when the login key was used: the next login needs the new one (see the runtime file). */
  onKeyUsed?: () => void;

  /** The login key logged a browser in: a new one replaces it (and `onKeyUsed` rewrites the runtime file). */
  keyUsed(): void {
    this.key = randomBytes(24).toString('base64url');
    this.onKeyUsed?.();
  }

  owns(pathname: string): boolean {
    return pathname === '/' || pathname.startsWith('/dashboard/');
  }

  async serve(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    client: string | undefined,
  ): Promise<void> {
    const path = url.pathname;
    if (path === '/' || path === '/dashboard/') return this.file(req, res, 'index.html');
    if (!path.startsWith(API)) return this.file(req, res, path.slice('/dashboard/'.length));
    const route = `${req.method} ${path.slice(API.length)}`;
    switch (route) {
      case 'GET state':
        return json(res, 200, await this.state(true));
      case 'GET events':
        return this.stream(res);
      case 'POST call':
        return this.call(req, res, client);
      case 'POST trust':
        return this.trust(req, res);
      default:
        return json(res, 404, { error: `no ${route}` });
    }
  }

  /** Ends the live streams and stops watching calls. */
  close(): void {
    this.unsubscribe();
    clearInterval(this.poll);
    for (const res of this.streams) res.end();
    this.streams.clear();
  }

  private async file(req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: 'GET only' });
    const asset: AssetFile | undefined = await dashboardAsset(name);
    if (!asset) return json(res, 404, { error: `no ${name}` });
    res.writeHead(200, {
      'content-type': asset.type,
      'content-length': asset.body.length,
      // The page runs only its own scripts and talks only to this origin.
      'content-security-policy':
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
    });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
  }

  /** Everything the page shows; `withHistory` adds the recent calls and log lines. */
  private async state(withHistory: boolean): Promise<Record<string, unknown>> {
    const catalog = await this.gateway.catalog();
    const tools = catalog.tools.map((t) => ({
      name: t.name,
      server: t.server,
      tool: t.tool,
      description: t.definition.description ?? '',
      inputSchema: t.definition.inputSchema,
      pin: this.gateway.pinState(t.server, { ...t.definition, name: t.tool }),
    }));
    const hidden = [...catalog.hidden].map(([name, h]) => ({
      name,
      server: h.server,
      tool: h.tool,
      description: '',
      inputSchema: {},
      pin: 'changed',
      hidden: h.reason,
    }));
    const upstreams = this.gateway.status().map((s) => ({
      ...s,
      login: s.state === 'needs-login' ? 'needs login' : s.transport === 'stdio' ? 'n/a' : 'ok',
    }));
    return {
      gateway: {
        version: PACKAGE_VERSION,
        pid: process.pid,
        startedAt: this.startedAt,
        clients: this.gateway.clients,
        payloads: this.options.payloads ?? false,
        ...(this.options.profile === undefined ? {} : { profile: this.options.profile }),
      },
      upstreams,
      tools: [...tools, ...hidden],
      profiles: this.profiles(catalog),
      ...(withHistory ? { calls: this.feed.recent(), log: this.options.logs?.recent() ?? [] } : {}),
    };
  }

  /** Each configured profile: its endpoint and the tools of the catalog it serves there. */
  private profiles(catalog: Catalog): Record<string, unknown>[] {
    return Object.entries(this.gateway.profileConfigs()).map(([name, profile]) => {
      const admits = profileFilter(profile);
      return {
        name,
        description: profile.description ?? '',
        path: `/mcp/${name}`,
        tools: catalog.tools.filter((t) => admits(t.name, t.server)).map((t) => t.name),
      };
    });
  }

  /** The live feed: `call`, `log` and `state` events until the page goes away. */
  private stream(res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    res.write(': mcpkit dashboard\n\n');
    const send = (event: string, data: unknown) =>
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    const stopCalls = this.feed.listen((call) => send('call', call));
    const stopLog = this.options.logs?.listen((line) => send('log', line));
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
    keepAlive.unref();
    this.streams.add(res);
    this.watchState();
    res.once('close', () => {
      stopCalls();
      stopLog?.();
      clearInterval(keepAlive);
      this.streams.delete(res);
      if (this.streams.size === 0) {
        clearInterval(this.poll);
        this.poll = undefined;
      }
    });
  }

  /** While pages are open: sends `state` when the upstreams or tools changed. */
  private watchState(): void {
    if (this.poll) return;
    this.lastState = '';
    const check = async () => {
      const state = JSON.stringify(await this.state(false).catch(() => undefined));
      if (state === undefined || state === this.lastState) return;
      this.lastState = state;
      for (const res of this.streams) res.write(`event: state\ndata: ${state}\n\n`);
    };
    this.poll = setInterval(() => void check(), STATE_POLL_MS);
    this.poll.unref();
    void check();
  }

  private async call(req: IncomingMessage, res: ServerResponse, client: string | undefined): Promise<void> {
    const body = await jsonBody(req, res);
    if (!body) return;
    const { name, arguments: args } = body as { name?: unknown; arguments?: unknown };
    if (typeof name !== 'string') return json(res, 400, { error: '"name" must be a tool name' });
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
      return json(res, 400, { error: '"arguments" must be a JSON object' });
    const aborted = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) aborted.abort('the page went away');
    });
    try {
      const result = await this.gateway.callTool(
        name,
        (args ?? {}) as Record<string, unknown>,
        client === undefined ? 'dashboard' : `dashboard:${client}`,
        aborted.signal,
      );
      return json(res, 200, { result });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return json(res, error instanceof ProtocolError ? 400 : 500, { error: message });
    }
  }

  private async trust(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await jsonBody(req, res);
    if (!body) return;
    const server = (body as { server?: unknown }).server;
    if (typeof server !== 'string') return json(res, 400, { error: '"server" must be a server name' });
    try {
      return json(res, 200, await this.gateway.trust(server));
    } catch (error) {
      return json(res, 400, { error: (error as Error).message });
    }
  }
}

/**
 * A POST's JSON body. Only `application/json` is taken: a browser sends that cross-site only after a
 * CORS preflight, which this server never grants (so a foreign page cannot post a form here).
 */
async function jsonBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
    json(res, 415, { error: 'send application/json' });
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_CALL_BODY) {
      json(res, 413, { error: 'body too large' });
      return undefined;
    }
    chunks.push(chunk);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
  } catch {
    // answered below
  }
  json(res, 400, { error: 'the body must be a JSON object' });
  return undefined;
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res
    .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
    .end(JSON.stringify(value));
}
