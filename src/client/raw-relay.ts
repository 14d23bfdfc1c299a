import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

/** What comes back for a relayed request: the server's `result` or its `error`, as sent. */
export type RelayResponse =
  | { result: Record<string, unknown> }
  | { error: { code: number; message: string; data?: unknown } };

interface Pending {
  resolve(response: RelayResponse): void;
  deadline: number;
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

  constructor(private readonly transport: Transport) {}

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
    this.pending.set(id, { resolve: onResponse, deadline: Date.now() + timeoutMs });
    this.sweeper ??= setInterval(() => this.sweep(), 1000).unref();
    this.transport.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage).catch((error: unknown) => {
      this.settle(id, { code: -32603, message: `cannot send to the server: ${(error as Error).message}` });
    });
    return id;
  }

  /**
   * Tells the server to stop a relayed request (`notifications/cancelled`); the request settles with a
   * -32800 error, and the server's answer, if one still comes, is dropped.
   */
  cancel(id: string, reason: string | undefined, meta: Record<string, unknown> | undefined): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    pending.resolve({ error: { code: -32800, message: 'Request cancelled' } });
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
    pending.resolve({ error });
  }

  /** Request timeouts, checked once a second rather than with a timer per request. */
  private sweep(): void {
    const now = Date.now();
    for (const [id, pending] of this.pending) {
      if (pending.deadline > now) continue;
      this.settle(id, { code: -32001, message: 'Request timed out' });
      const params = { requestId: id, reason: 'timed out' };
      this.transport
        .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params } as JSONRPCMessage)
        .catch(() => undefined);
    }
    if (this.pending.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
}
