import type { Implementation } from '@modelcontextprotocol/server';

/** The `_meta` key under which a 2026-07-28 result names the server that produced it. */
export const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';

/**
 * A result as a 2026-07-28 server sends it (what the SDK adds when it answers): `resultType: "complete"`
 * (an `input_required` or `task` one stays so) and the serving side's identity in `_meta`. For answers an intercept
 * makes itself.
 */
export function modernResult(
  result: Record<string, unknown>,
  serverInfo: Implementation,
): Record<string, unknown> {
  const meta = (result._meta as Record<string, unknown> | undefined) ?? {};
  const resultType =
    result.resultType === 'input_required' || result.resultType === 'task' ? result.resultType : 'complete';
  return { ...result, resultType, _meta: { ...meta, [SERVER_INFO_META_KEY]: serverInfo } };
}
