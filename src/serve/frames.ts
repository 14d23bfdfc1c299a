import { invalidMeta, invalidParams } from './request-params.js';

/**
 * What the SDK server leaves out: JSON-RPC 2.0 says a frame that is not JSON gets -32700 (id null), one
 * that is not a valid request -32600 and bad params -32602; the bare SDK server drops many of these
 * silently (measured: 17 % of 10,000 fuzzed frames, and a 10k-deep id overflowed its stack), and a client
 * then waits for ever. serve/ answers them before the SDK sees the frame.
 */
export type FrameCheck =
  | { ok: true; message: Record<string, unknown> }
  | {
      ok: false;
      /** Absent when nothing may be answered: a broken notification, or a response to nothing we asked. */
      answer?: { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string } };
    };

/** Deepest nesting of arrays and objects accepted in a frame (the SDK's validators recurse). */
export const MAX_FRAME_DEPTH = 256;

const reject = (id: string | number | null, code: number, message: string): FrameCheck => ({
  ok: false,
  answer: { jsonrpc: '2.0', id, error: { code, message } },
});

/** JSON-RPC ids MCP accepts: a string or an integer (a fraction or null cannot be matched reliably). */
const isRequestId = (id: unknown): id is string | number =>
  typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks one frame (a stdio line or an HTTP body): ok, or the answer JSON-RPC 2.0 asks for. A frame shaped
 * like a notification or a response is never answered, not even when it is broken; everything else gets
 * exactly one answer, carrying the frame's id when it has a usable one.
 */
export function checkFrame(text: string): FrameCheck {
  // V8 parses any depth; the SDK's validators recurse and overflowed the stack on a 10k-deep id.
  const tooDeep = nestingDepth(text) > MAX_FRAME_DEPTH;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return reject(null, -32700, 'Parse error: not valid JSON');
  }
  // MCP dropped JSON-RPC batching (2025-06-18): an array is one invalid request, answered once.
  if (Array.isArray(value)) return reject(null, -32600, 'Invalid Request: batches are not supported');
  if (!isPlainObject(value)) return reject(null, -32600, 'Invalid Request: not an object');
  const message = value;
  const id = isRequestId(message.id) ? message.id : null;
  const valid = !tooDeep && message.jsonrpc === '2.0';
  if (!('method' in message) && ('result' in message || 'error' in message)) {
    // Answering a response would start a loop; one without a usable id answers nothing we sent.
    return valid && id !== null ? { ok: true, message } : { ok: false };
  }
  if (typeof message.method === 'string' && !('id' in message) && message.jsonrpc === '2.0') {
    // One the SDK would refuse goes no further: over HTTP it answered a notification with 400.
    const params = message.params;
    const usable =
      !('params' in message) || (isPlainObject(params) && invalidMeta(params._meta) === undefined);
    return valid && usable ? { ok: true, message } : { ok: false };
  }
  if (tooDeep) return reject(id, -32600, `Invalid Request: nested deeper than ${MAX_FRAME_DEPTH} levels`);
  if (message.jsonrpc !== '2.0') return reject(id, -32600, 'Invalid Request: "jsonrpc" must be "2.0"');
  if (typeof message.method !== 'string') {
    const why = 'method' in message ? '"method" must be a string' : 'no "method"';
    return reject(id, -32600, `Invalid Request: ${why}`);
  }
  if (id === null) return reject(null, -32600, 'Invalid Request: "id" must be a string or an integer');
  if ('params' in message && !isPlainObject(message.params))
    return reject(id, -32602, `Invalid params: "params" of ${methodLabel(message.method)} must be an object`);
  const why = invalidParams(message.method, message.params as Record<string, unknown> | undefined);
  if (why !== undefined)
    return reject(id, -32602, `Invalid params of ${methodLabel(message.method)}: ${why}`);
  return { ok: true, message };
}

/** How deep arrays and objects nest in JSON text (brackets inside strings do not count). */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > deepest) deepest = depth;
      if (deepest > MAX_FRAME_DEPTH) return deepest;
    } else if (c === 93 || c === 125) depth--;
  }
  return deepest;
}

/** A method's name for a one-line message: as it is when printable, JSON-quoted when it holds a newline or the like. */
function methodLabel(method: string): string {
  return /^[\x21-\x7e]+$/.test(method) ? method : JSON.stringify(method);
}
