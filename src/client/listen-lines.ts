import type { FetchLike } from '@modelcontextprotocol/client';
import { LineSplitter, MAX_LINE_LENGTH } from '../internal/line-splitter.js';

/**
 * Liberal in what we accept: a `subscriptions/listen` stream sent as `application/json` lines (one JSON-RPC
 * message per line, chunked: what the conformance suite's own reference server sends) instead of the SSE
 * stream the Streamable HTTP transport specifies. The SDK client reads an `application/json` answer whole,
 * so such a stream never acknowledges and its notifications are lost; here its lines become SSE `message`
 * events, which the SDK reads as they come. Only the answer to a `subscriptions/listen` POST is touched; a
 * single JSON answer (an error) becomes one event, which the SDK reads the same way.
 */
export function listenLinesAsEvents(fetch: FetchLike): FetchLike {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!isListen(init) || !response.body) return response;
    const type = response.headers.get('content-type') ?? '';
    if (!/^application\/(?:json|x-ndjson|jsonl)/iu.test(type)) return response;
    const headers = new Headers(response.headers);
    headers.set('content-type', 'text/event-stream');
    headers.delete('content-length');
    // The request's signal closes the stream (the SDK's `close()` of the subscription aborts it).
    const events = response.body
      .pipeThrough(new TextDecoderStream(), init?.signal ? { signal: init.signal } : {})
      .pipeThrough(linesToEvents())
      .pipeThrough(new TextEncoderStream());
    const wrapped = new Response(events, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
    Object.defineProperty(wrapped, 'url', { value: response.url });
    return wrapped;
  };
}

function isListen(init: RequestInit | undefined): boolean {
  if (init?.method !== 'POST' || typeof init.body !== 'string') return false;
  if (!init.body.includes('subscriptions/listen')) return false;
  try {
    const message = JSON.parse(init.body) as { method?: unknown };
    return message.method === 'subscriptions/listen';
  } catch {
    return false;
  }
}

/**
 * Each non-empty line of text becomes one SSE `message` event: split by the stdio transport's
 * {@link LineSplitter} (each chunk scanned once, a line over {@link MAX_LINE_LENGTH} dropped as it comes, so an
 * upstream that never sends a newline costs neither memory nor time).
 */
function linesToEvents(): TransformStream<string, string> {
  let out: string[] = [];
  const lines = new LineSplitter((line) => {
    if (line.trim() !== '') out.push(`event: message\ndata: ${line.trim()}\n\n`);
  });
  const emit = (controller: TransformStreamDefaultController<string>) => {
    if (out.length > 0) controller.enqueue(out.join(''));
    out = [];
  };
  return new TransformStream<string, string>({
    transform(chunk, controller) {
      lines.push(chunk);
      emit(controller);
    },
    flush(controller) {
      lines.flush();
      emit(controller);
    },
  });
}
