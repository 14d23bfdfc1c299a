/**
 * What the SDK server leaves out: JSON-RPC 2.0 says a frame that is not JSON gets -32700 (id null) and one
 * that is not a valid request gets -32600; the bare SDK server drops both silently (measured), and a client
 * then waits for ever. serve/ answers them before the SDK sees the frame.
 */
export type FrameCheck =
  | { ok: true; message: Record<string, unknown> | unknown[] }
  | {
      ok: false;
      answer: { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string } };
    };

const reject = (id: string | number | null, code: number, message: string): FrameCheck => ({
  ok: false,
  answer: { jsonrpc: '2.0', id, error: { code, message } },
});

/** Checks one frame (a stdio line or an HTTP body). Batches are left to the SDK. */
export function checkFrame(text: string): FrameCheck {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return reject(null, -32700, 'Parse error: not valid JSON');
  }
  if (Array.isArray(value)) return { ok: true, message: value };
  if (typeof value !== 'object' || value === null)
    return reject(null, -32600, 'Invalid Request: not an object');
  const message = value as Record<string, unknown>;
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  if (message.jsonrpc !== '2.0') return reject(id, -32600, 'Invalid Request: "jsonrpc" must be "2.0"');
  const isRequestOrNotification = typeof message.method === 'string';
  const isResponse = 'result' in message || 'error' in message;
  if (!isRequestOrNotification && !isResponse) return reject(id, -32600, 'Invalid Request: no "method"');
  return { ok: true, message };
}
