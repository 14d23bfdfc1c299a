import type { JsonRpcMessage, Probe } from './probe.js';

/** One HTTP exchange as the gates see it. */
export interface HttpExchange {
  status: number;
  headers: Headers;
  messages: JsonRpcMessage[];
  text: string;
  /** Why no answer came (status 0): the network error fetch threw. */
  error?: unknown;
}

/**
 * A Streamable HTTP server under test, spoken to with plain fetch: the gates need to send what a proper
 * client never would (foreign Host/Origin, unknown sessions, broken JSON) and see the raw status codes.
 */
export class HttpProbe implements Probe {
  readonly kind = 'http';
  readonly notifications: JsonRpcMessage[] = [];
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  private nextId = 1;

  constructor(
    readonly url: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  alive(): boolean {
    return true;
  }

  /** POSTs a body; answers are read whether JSON or an SSE stream. Network failures become status 0. */
  async post(
    body: string,
    extraHeaders: Record<string, string> = {},
    timeoutMs = 10_000,
  ): Promise<HttpExchange> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...this.headers,
      ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
      ...(this.protocolVersion ? { 'mcp-protocol-version': this.protocolVersion } : {}),
      ...extraHeaders,
    };
    return this.exchange('POST', body, headers, timeoutMs);
  }

  /** Any method, with exactly the headers given (plus the entry's). */
  async exchange(
    method: string,
    body: string | undefined,
    headers: Record<string, string>,
    timeoutMs = 10_000,
  ): Promise<HttpExchange> {
    let response: Response;
    try {
      response = await fetch(this.url, {
        method,
        headers: { ...this.headers, ...headers },
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      return { status: 0, headers: new Headers(), messages: [], text: '', error };
    }
    const text = await response.text().catch(() => '');
    const type = response.headers.get('content-type') ?? '';
    const messages = type.includes('text/event-stream') ? parseSse(text) : parseJson(text);
    for (const m of messages) if (m.method !== undefined && m.id === undefined) this.notifications.push(m);
    return { status: response.status, headers: response.headers, messages, text };
  }

  async request(method: string, params: Record<string, unknown> | undefined, timeoutMs: number) {
    const id = this.nextId++;
    const frame = JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    // A 2026-era request repeats its envelope's version (and its method) in headers.
    const meta = params?._meta as Record<string, unknown> | undefined;
    const version = meta?.['io.modelcontextprotocol/protocolVersion'];
    const headers: Record<string, string> =
      typeof version === 'string' ? { 'mcp-protocol-version': version, 'mcp-method': method } : {};
    const answer = await this.raw(frame, id, timeoutMs, headers);
    if (method === 'initialize' && answer?.result) {
      this.protocolVersion = String(answer.result.protocolVersion ?? '');
    }
    return answer;
  }

  async raw(
    frame: string,
    id: string | number | null,
    timeoutMs: number,
    headers: Record<string, string> = {},
  ): Promise<JsonRpcMessage | undefined> {
    const exchange = await this.post(frame, headers, timeoutMs);
    const session = exchange.headers.get('mcp-session-id');
    if (session) this.sessionId = session;
    return exchange.messages.find((m) => m.method === undefined && (m.id ?? null) === id);
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    await this.post(JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }));
  }

  /** Ends the session (DELETE), as a client closing down does. */
  async close(): Promise<void> {
    if (this.sessionId) {
      await this.exchange('DELETE', undefined, { 'mcp-session-id': this.sessionId }, 2000);
      this.sessionId = undefined;
    }
  }
}

function parseJson(text: string): JsonRpcMessage[] {
  try {
    const value = JSON.parse(text) as JsonRpcMessage | JsonRpcMessage[];
    return Array.isArray(value) ? value : [value];
  } catch {
    return [];
  }
}

function parseSse(text: string): JsonRpcMessage[] {
  const messages: JsonRpcMessage[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    if (data) messages.push(...parseJson(data));
  }
  return messages;
}
