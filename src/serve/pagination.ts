import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/** Items per page of a list a server answers (`tools/list`, `resources/list`, …). */
export const PAGE_SIZE = 100;

/**
 * One page of `items` under `key`, for an opaque `cursor` (the offset as a string); `nextCursor` only when
 * more follow. A cursor that is not one of ours is -32602, as the spec asks for an invalid cursor.
 *
 * @example
 * server.setRequestHandler('tools/list', (request) => pageOf(tools, request.params?.cursor, 'tools'));
 */
export function pageOf<K extends string, T>(
  items: readonly T[],
  cursor: string | undefined,
  key: K,
  pageSize = PAGE_SIZE,
): Record<K, T[]> & { nextCursor?: string } {
  const start = cursor ? Number(cursor) : 0;
  if (!Number.isInteger(start) || start < 0 || start > items.length)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
  const next = start + pageSize;
  return {
    [key]: items.slice(start, next),
    ...(next < items.length ? { nextCursor: String(next) } : {}),
  } as Record<K, T[]> & { nextCursor?: string };
}
