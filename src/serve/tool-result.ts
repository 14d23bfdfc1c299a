import type { CallToolResult } from '@modelcontextprotocol/server';

/**
 * The one place tool results are built: a text result, a failed one (`isError: true`, the third kind of
 * error: the model reads it), or a JSON value as text plus `structuredContent` when it is an object.
 *
 * @example
 * return failedResult(`no job ${id}`);
 */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** A tool failure the model should read: its text and `isError: true`. */
export function failedResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * A JSON value as a result: indented text for the model and, for a plain object, the same value as
 * `structuredContent` (what a tool with an `outputSchema` must send).
 */
export function jsonResult(
  value: unknown,
  options: { indent?: number; structured?: boolean } = {},
): CallToolResult {
  const text = JSON.stringify(value ?? null, null, options.indent);
  const structured =
    (options.structured ?? true) && typeof value === 'object' && value !== null && !Array.isArray(value);
  return structured
    ? { content: [{ type: 'text', text }], structuredContent: { ...(value as Record<string, unknown>) } }
    : { content: [{ type: 'text', text }] };
}
