import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import type { ProgressUpdate } from '../serve/progress.js';

export type { ProgressUpdate };

/**
 * Routes progress notifications at the transport, in arrival order, before the SDK sees the response that
 * follows them: the SDK client drops a progress notification that arrives together with its response
 * (typescript-sdk #2580). mcpkit owns the progress tokens, so these notifications never reach the SDK.
 */
export class ProgressRouter {
  private readonly handlers = new Map<string, (update: ProgressUpdate) => void>();

  register(token: string, handler: (update: ProgressUpdate) => void): void {
    this.handlers.set(token, handler);
  }

  unregister(token: string): void {
    this.handlers.delete(token);
  }

  /** Wraps the transport's `onmessage` (installed by the SDK client on connect). */
  attach(transport: Transport): void {
    const inner = transport.onmessage as ((m: JSONRPCMessage, extra?: unknown) => void) | undefined;
    transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
      if ('method' in message && message.method === 'notifications/progress' && !('id' in message)) {
        const params = (message.params ?? {}) as unknown as { progressToken?: unknown } & ProgressUpdate;
        const handler = this.handlers.get(String(params.progressToken));
        if (handler) {
          const update: ProgressUpdate = { progress: params.progress };
          if (params.total !== undefined) update.total = params.total;
          if (params.message !== undefined) update.message = params.message;
          handler(update);
          return;
        }
      }
      inner?.(message, extra);
    };
  }
}
