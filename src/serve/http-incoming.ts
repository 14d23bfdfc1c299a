import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { readNodeBody, readWebBody } from './http-io.js';

/**
 * One HTTP request as serve/'s request path sees it, whichever door it came in by: node's `(req, res)`
 * or a web `Request`. The path reads headers and the body through it and builds a web `Request` only when
 * the SDK needs one (building it for every request halved the gateway's HTTP throughput).
 */
export interface Incoming {
  readonly method: string;
  readonly pathname: string;
  /** A header by its lower-case name (the first one when repeated), or undefined. */
  header(name: string): string | undefined;
  /** How many Host headers came (a web request cannot tell: 1). */
  readonly hostHeaders: number;
  /** Aborts when the client goes away before its answer. */
  readonly signal: AbortSignal;
  /** The body as text; undefined when it is larger than `limit`. Read at most once. */
  body(limit: number): Promise<string | undefined>;
  /** The request as a web `Request` for the SDK (its body already read: pass the parsed frame along). */
  toRequest(): Request;
  /**
   * Answers with one JSON-RPC message (an intercept's answer; 200 unless `status` says otherwise): written
   * straight to node's response, or the `Response` a web caller gets. Undefined once written.
   */
  json(message: JSONRPCMessage, status?: number): Response | undefined;
  /** The node request and response, for pages served beside the endpoint (the node door only). */
  readonly node?: { req: IncomingMessage; res: ServerResponse };
}

/** The node door's view of `(req, res)`. */
export function nodeIncoming(req: IncomingMessage, res: ServerResponse): Incoming {
  const aborted = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) aborted.abort('the client went away');
  });
  let request: Request | undefined;
  return {
    method: req.method ?? 'GET',
    pathname: (req.url ?? '/').split('?')[0] ?? '/',
    header: (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value[0] : value;
    },
    hostHeaders: hostHeaders(req.rawHeaders),
    signal: aborted.signal,
    body: (limit) => readNodeBody(req, limit),
    toRequest: () => {
      request ??= new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method ?? 'GET',
        headers: webHeaders(req.headers),
        signal: aborted.signal,
      });
      return request;
    },
    json: (message, status = 200) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(message));
      return undefined;
    },
    node: { req, res },
  };
}

/** The web door's view of a `Request` (`handler.request(…)`, or an SDK client's `fetch`). */
export function webIncoming(request: Request): Incoming {
  const url = new URL(request.url);
  return {
    method: request.method,
    pathname: url.pathname,
    // A Request built from a bare path carries no Host: the URL's authority stands for it.
    header: (name) => request.headers.get(name) ?? (name === 'host' ? url.host : undefined),
    hostHeaders: 1,
    signal: request.signal,
    body: (limit) => readWebBody(request, limit),
    toRequest: () => request,
    json: (message, status = 200) => Response.json(message, { status }),
  };
}

/** RFC 9112 §3.2: how many Host headers a request carried (more than one gets 400: which one to check?). */
function hostHeaders(rawHeaders: readonly string[]): number {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]?.toLowerCase() === 'host') seen++;
  return seen;
}

function webHeaders(headers: IncomingHttpHeaders): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    result.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return result;
}
