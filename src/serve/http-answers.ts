import type { RequestId } from '@modelcontextprotocol/server';
import type { FrameCheck } from './frames.js';

/** A JSON-RPC error as an HTTP response: serve/'s own refusals (the SDK's answers come as they are). */
export const rpcError = (
  status: number,
  id: RequestId | null,
  code: number,
  message: string,
  headers: Record<string, string> = {},
) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

/** 202: a notification or a response was taken (nothing to answer). */
export const accepted = () => new Response(null, { status: 202 });

/** A frame serve/ refused (its answer), or 202 for a broken notification nobody may answer. */
export const refusalOf = (checked: Extract<FrameCheck, { ok: false }>): Response =>
  checked.answer
    ? rpcError(400, checked.answer.id, checked.answer.error.code, checked.answer.error.message)
    : accepted();
