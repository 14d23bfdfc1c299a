import type { ProgressToken, ServerContext } from '@modelcontextprotocol/server';

/** What one `notifications/progress` carries besides its token. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** The request's `_meta.progressToken`, when it asked for progress (a string or a number, per the spec). */
export function progressTokenOf(meta: unknown): ProgressToken | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const token = (meta as { progressToken?: unknown }).progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/**
 * Sends progress for the request being handled, or undefined when the request carried no progress token
 * (then nothing is sent and callers can skip the work of describing progress). A notification that cannot
 * be delivered is dropped: progress never fails the request.
 */
export function progressSender(ctx: ServerContext): ((update: ProgressUpdate) => Promise<void>) | undefined {
  const token = progressTokenOf(ctx.mcpReq._meta);
  if (token === undefined) return undefined;
  return (update) =>
    ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, ...update } })
      .catch(() => undefined);
}
