import {
  InMemoryTransport,
  type JSONRPCMessage,
  type MessageExtraInfo,
  SdkErrorCode,
  SdkHttpError,
  type Transport,
} from '@modelcontextprotocol/client';
import type { McpServer, Server } from '@modelcontextprotocol/server';

/**
 * A transport standing in for a remote one in-process: an SDK server behind a linked in-memory pair, and
 * failures on demand — the next request of a method is refused with the error a real transport throws.
 */
export class ScriptedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  private readonly failures: { method: string; error: Error }[] = [];
  private readonly inner: Transport;

  constructor(server: McpServer | Server) {
    const [client, serverSide] = InMemoryTransport.createLinkedPair();
    void server.connect(serverSide);
    this.inner = client;
  }

  /** The next request of `method` fails with `error` (it never reaches the server). */
  failNext(method: string, error: Error): void {
    this.failures.push({ method, error });
  }

  start(): Promise<void> {
    this.inner.onmessage = (message, extra) => this.onmessage?.(message, extra);
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    return this.inner.start();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const method = (message as { method?: unknown }).method;
    const index = this.failures.findIndex((failure) => failure.method === method);
    if (index !== -1) {
      const [failure] = this.failures.splice(index, 1);
      throw failure?.error;
    }
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** A transport that cannot reach its server: every send fails with `error`. */
export function unreachable(error: Error): Transport {
  return {
    start: async () => undefined,
    send: async () => {
      throw error;
    },
    close: async () => undefined,
  };
}

/** The error the SDK's HTTP transports throw for an HTTP status. */
export function httpError(status: number, statusText: string): SdkHttpError {
  return new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${statusText}`, {
    status,
    statusText,
  });
}

/** undici's "fetch failed" with the socket error as its cause. */
export function fetchFailed(code: string, extra: Record<string, unknown> = {}): TypeError {
  const cause = Object.assign(new Error(`connect ${code}`), { code, ...extra });
  return new TypeError('fetch failed', { cause });
}
