import type { Client } from '@modelcontextprotocol/client';
import { acceptedContent, inputRequired, type McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
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

/** What a raw 2026-07-28 request declares: its capabilities (default {@link ALL}), its client's name, a signal. */
export interface ModernInit {
  capabilities?: Record<string, unknown>;
  /** `clientInfo.name` of the envelope: which client asks (default `modern-test`). */
  client?: string;
  signal?: AbortSignal;
}

/**
 * A 2026-07-28 client's request as raw frames on an in-process HTTP handler (the gateway's): the `Mcp-Method`
 * and `Mcp-Name` headers, the per-request `_meta` envelope with `capabilities`, and a signal that drops it.
 */
export async function modernRequest<T = Answer>(
  http: HttpHandler,
  method: string,
  params: Record<string, unknown>,
  init: ModernInit = {},
): Promise<T> {
  return (await (await modernResponse(http, method, params, init)).json()) as T;
}

/** {@link modernRequest}'s HTTP response itself (its status, its headers). */
export function modernResponse(
  http: HttpHandler,
  method: string,
  params: Record<string, unknown>,
  init: ModernInit = {},
): Promise<Response> {
  const name = method === 'tools/call' ? params.name : params.taskId;
  return http.request('/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': init.capabilities ?? ALL,
          'io.modelcontextprotocol/clientInfo': { name: init.client ?? 'modern-test', version: '1' },
        },
      },
    }),
    ...(init.signal ? { signal: init.signal } : {}),
  });
}

/** {@link modernRequest} for a tools/call of `tool` with no arguments, plus `extra` params (a retry's answers). */
export function modernCall(
  http: HttpHandler,
  tool: string,
  extra: Record<string, unknown> = {},
  init: { capabilities?: Record<string, unknown>; signal?: AbortSignal } = {},
): Promise<Answer> {
  return modernRequest(http, 'tools/call', { name: tool, arguments: {}, ...extra }, init);
}

/**
 * A 2026-07-28 tool that asks two questions, a round each (`Name?`, then `Color?`), and answers
 * `<name> likes <color>`: each retry carries only the last round's answers; what came before rides in the
 * state. `onCall` hears each call it gets.
 */
export function registerTwoQuestions(server: McpServer, onCall: () => void = () => undefined): void {
  const form = (key: string) => ({
    type: 'object' as const,
    properties: { [key]: { type: 'string' as const } },
  });
  server.registerTool('two_questions', { inputSchema: z.object({}) }, async (_args, ctx) => {
    onCall();
    const name = acceptedContent(ctx.mcpReq.inputResponses, 'name');
    const color = acceptedContent(ctx.mcpReq.inputResponses, 'color');
    const state = ctx.mcpReq.requestState();
    if (name)
      return inputRequired({
        inputRequests: { color: inputRequired.elicit({ message: 'Color?', requestedSchema: form('color') }) },
        requestState: JSON.stringify(name),
      });
    if (!color || typeof state !== 'string')
      return inputRequired({
        inputRequests: { name: inputRequired.elicit({ message: 'Name?', requestedSchema: form('name') }) },
      });
    const first = JSON.parse(state) as { name: string };
    return { content: [{ type: 'text', text: `${first.name} likes ${color.color}` }] };
  });
}

/**
 * A 2025 client answers {@link registerTwoQuestions}' elicitations (`Flo`, then `teal`); the messages it was asked
 * are returned, in order.
 */
export function answerTwoQuestions(client: Client): string[] {
  const questions: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    questions.push(request.params.message);
    return {
      action: 'accept',
      content: request.params.message === 'Name?' ? { name: 'Flo' } : { color: 'teal' },
    };
  });
  return questions;
}

/** What an `input_required` answer asks, by key: the method of each input request. */
export const asked = (answer: Answer) =>
  Object.fromEntries(
    Object.entries(answer.result?.inputRequests ?? {}).map(([key, request]) => [key, request.method]),
  );
