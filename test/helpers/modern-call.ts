import type { HttpHandler } from '../../src/serve/index.js';

/** The 2026-07-28 revision, as a raw client names it. */
export const MODERN = '2026-07-28';

/** Every capability a 2026-07-28 client may declare for `input_required` rounds. */
export const ALL = { elicitation: {}, sampling: {}, roots: {} };

/** A 2026-07-28 tools/call answer, as the raw client reads it. */
export interface Answer {
  id: number;
  result?: {
    resultType?: string;
    inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
    requestState?: string;
    content?: { text: string }[];
  };
  error?: { code: number; message: string };
}

let nextId = 1;

/**
 * A 2026-07-28 client's tools/call as raw frames on an in-process HTTP handler (the gateway's): the
 * per-request `_meta` envelope with `capabilities` (default {@link ALL}), `extra` params (a retry's
 * `inputResponses` and `requestState`), and a signal that drops the request.
 */
export async function modernCall(
  http: HttpHandler,
  tool: string,
  extra: Record<string, unknown> = {},
  init: { capabilities?: Record<string, unknown>; signal?: AbortSignal } = {},
): Promise<Answer> {
  const response = await http.request('/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: {
        name: tool,
        arguments: {},
        ...extra,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': init.capabilities ?? ALL,
          'io.modelcontextprotocol/clientInfo': { name: 'modern-test', version: '1' },
        },
      },
    }),
    ...(init.signal ? { signal: init.signal } : {}),
  });
  return (await response.json()) as Answer;
}

/** What an `input_required` answer asks, by key: the method of each input request. */
export const asked = (answer: Answer) =>
  Object.fromEntries(
    Object.entries(answer.result?.inputRequests ?? {}).map(([key, request]) => [key, request.method]),
  );
