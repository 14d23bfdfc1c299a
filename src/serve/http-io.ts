import type { IncomingMessage, ServerResponse } from 'node:http';

/** How much of an upload over the limit is read and dropped so that the client gets its 413 cleanly. */
const DRAIN_BYTES = 8 * 1024 * 1024;

/**
 * The request body as text; undefined when it is larger than `limit`. An upload over the limit is read to
 * its end and dropped (up to another 8 MiB) before the caller answers: answering mid-upload and closing
 * reset the connection under the client, which then saw ECONNRESET instead of the 413.
 */
export function readNodeBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const declared = Number(req.headers['content-length']);
  const drainLimit = limit + DRAIN_BYTES;
  return new Promise<string | undefined>((resolve, reject) => {
    // Too large to drain: answer now (the connection closes after the answer).
    if (Number.isFinite(declared) && declared > drainLimit) {
      resolve(undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > drainLimit) resolve(undefined);
      else if (size <= limit) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.once('end', () => resolve(size > limit ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

/** A web request's body as text; undefined when it is larger than `limit`. */
export async function readWebBody(request: Request, limit: number): Promise<string | undefined> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes a web response to node's `res`, streaming its body (SSE) until it ends or the client leaves. */
export async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  const body = response.body;
  if (!body) {
    res.end();
    return;
  }
  // An event stream may stay quiet for long: the client needs its headers now.
  if (headers['content-type']?.startsWith('text/event-stream')) res.flushHeaders();
  const reader = body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  res.once('close', stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The stream failed or was cancelled because the client left: nothing more to send.
  } finally {
    res.off('close', stop);
    res.end();
  }
}
