import { type JSONRPCMessage, PROTOCOL_VERSION_META_KEY, type Transport } from '@modelcontextprotocol/client';

/** What comes back for a relayed request: the server's `result` or its `error`, as sent. */
export type RelayResponse =
  | { result: Record<string, unknown> }
  | { error: { code: number; message: string; data?: unknown } };

interface Pending {
  resolve(response: RelayResponse): void;
  deadline: number;
  /** The request's own HTTP stream (Streamable HTTP opens one per request): aborting it cancels a 2026-07-28 request. */
  stream?: AbortController;
  /** The 2026-07-28 envelope the request went with, if any (a cancel on a timeout carries it too). */
  envelope?: Record<string, unknown>;
}

/**
 * Sends requests on a connection's transport without the SDK client: no schema pass over the result, no
 * per-request timer or abort signal. For a proxy that hands results on as they are (the gateway), this
 * is most of the CPU a call costs. Ids are mcpkit's own strings, so they never meet the SDK's numbers;
 * responses to them are taken off the transport before the SDK sees them.
 */
export class RawRelay {
  private readonly pending = new Map<string, Pending>();
  private counter = 0;
  private sweeper: NodeJS.Timeout | undefined;

  /** Whether each request has a stream of its own (Streamable HTTP), which can be closed to cancel it. */
  private readonly perRequestStream: boolean;

  constructor(private readonly transport: Transport) {
    this.perRequestStream = (transport as { hasPerRequestStream?: boolean }).hasPerRequestStream === true;
  }

  /** Wraps the transport's `onmessage` (installed by the SDK client on connect). */
  attach(): void {
    const inner = this.transport.onmessage as ((m: JSONRPCMessage, extra?: unknown) => void) | undefined;
    this.transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
      const id = (message as { id?: unknown }).id;
      if (typeof id === 'string' && !('method' in message)) {
        const pending = this.pending.get(id);
        if (pending) {
          this.pending.delete(id);
          pending.resolve(message as unknown as RelayResponse);
          return;
        }
      }
      inner?.(message, extra);
    };
  }

  /**
   * Sends a request; `onResponse` gets the server's answer, or a timeout / failure error object, exactly
   * once. Returns the request's id (for {@link cancel}).
   */
  request(
    method: string,
    params: Record<string, unknown>,
    timeoutMs: number,
    onResponse: (response: RelayResponse) => void,
  ): string {
    const id = `mcpkit-relay-${++this.counter}`;
    const stream = this.perRequestStream ? new AbortController() : undefined;
    const meta = params._meta as Record<string, unknown> | undefined;
    const envelope = meta?.[PROTOCOL_VERSION_META_KEY] === undefined ? undefined : meta;
    this.pending.set(id, {
      resolve: onResponse,
      deadline: Date.now() + timeoutMs,
      ...(stream ? { stream } : {}),
      ...(envelope ? { envelope } : {}),
    });
    this.sweeper ??= setInterval(() => this.sweep(), 1000).unref();
    const message = { jsonrpc: '2.0', id, method, params } as JSONRPCMessage;
    this.transport
      .send(message, stream ? { requestSignal: stream.signal } : undefined)
      .catch((error: unknown) => {
        this.settle(id, { code: -32603, message: `cannot send to the server: ${(error as Error).message}` });
      });
    return id;
  }

  /**
   * Tells the server to stop a relayed request; the request settles with a -32800 error, and the server's
   * answer, if one still comes, is dropped. On a 2026-07-28 connection (`meta`, its envelope, is given) over
   * Streamable HTTP, closing the request's stream is the cancellation; otherwise `notifications/cancelled`.
   */
  cancel(id: string, reason: string | undefined, meta: Record<string, unknown> | undefined): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    pending.resolve({ error: { code: -32800, message: 'Request cancelled' } });
    this.stop(id, pending, reason, meta);
  }

  private stop(
    id: string,
    pending: Pending,
    reason: string | undefined,
    meta: Record<string, unknown> | undefined,
  ): void {
    pending.stream?.abort(reason);
    if (meta && pending.stream) return;
    const params = {
      requestId: id,
      ...(reason === undefined ? {} : { reason }),
      ...(meta ? { _meta: meta } : {}),
    };
    this.transport
      .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params } as JSONRPCMessage)
      .catch(() => undefined);
  }

  /** Fails every request in flight (the connection closed). */
  failAll(message: string): void {
    for (const id of [...this.pending.keys()]) this.settle(id, { code: -32603, message });
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  private settle(id: string, error: { code: number; message: string }): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    pending.stream?.abort();
    pending.resolve({ error });
  }

  /** Request timeouts, checked once a second rather than with a timer per request. */
  private sweep(): void {
    const now = Date.now();
    for (const [id, pending] of this.pending) {
      if (pending.deadline > now) continue;
      this.settle(id, { code: -32001, message: 'Request timed out' });
      this.stop(id, pending, 'timed out', pending.envelope);
    }
    if (this.pending.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
}
