import type { Readable, Writable } from 'node:stream';
import type { AuthInfo, JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { BatchedWriter } from '../internal/batched-writer.js';
import { LineSplitter, MAX_LINE_LENGTH, type SkippedLine } from '../internal/line-splitter.js';
import { skippedFrame } from '../internal/skipped-frame.js';
import { checkFrame } from './frames.js';

/**
 * The stdio server transport serve/ hands to the SDK's `serveStdio`: newline-delimited JSON on the given
 * streams, answering malformed frames itself (see frames.ts) and passing the rest on. stdout carries
 * protocol frames only.
 */
/** What an intercept knows about a frame that came over HTTP. */
export interface InterceptContext {
  /** HTTP frames are offered only when they are 2026-07-28 requests (headers and body agree). */
  era: 'modern';
  /** Aborts when the HTTP client goes away before the answer. */
  signal: AbortSignal;
  /**
   * Calls `listener` once the request's answer is over: sent whole (a stream to its end), refused, or left by
   * the client. What an intercept holds for a request it passes on to the SDK is released there.
   */
  onEnd(listener: () => void): void;
  /** Who the request's credentials name (a bearer token's name as `clientId`, an OAuth token's client and scopes). */
  authInfo?: AuthInfo;
}

/**
 * Takes a frame before the SDK sees it: return true when it was handled (answered with `reply`, or
 * consumed). For a proxy's hot path, where the SDK's schema passes are most of the cost. Over HTTP, a
 * `context` comes along; `reply` must then be called exactly once.
 */
export type FrameIntercept = (
  message: JSONRPCMessage,
  reply: (message: JSONRPCMessage) => Promise<void>,
  context?: InterceptContext,
) => boolean;

/** The answer to a line over the cap: to its request's id when the line's ends show it, else to id null. */
function lineTooLong(line: SkippedLine): JSONRPCMessage {
  const frame = skippedFrame(line);
  // A notification or a response has no one to answer; a request whose id cannot be read gets id null.
  const id = frame?.kind === 'request' ? frame.id : null;
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32600,
      message: `Invalid Request: line longer than ${MAX_LINE_LENGTH / 1024 / 1024} MiB`,
    },
  } as unknown as JSONRPCMessage;
}

export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;
  private readonly writer: BatchedWriter;

  constructor(
    private readonly input: Readable,
    output: Writable,
    private readonly onClosed?: () => void,
    private readonly intercept?: FrameIntercept,
  ) {
    this.writer = new BatchedWriter(output);
  }

  async start(): Promise<void> {
    this.input.setEncoding('utf8');
    const lines = new LineSplitter((line) => this.onLine(line), {
      // The rest of the line is skipped; the next frame is served as usual.
      onOverflow: (line) => void this.send(lineTooLong(line)),
    });
    this.input.on('data', (chunk: string) => lines.push(chunk));
    this.input.on('end', () => void this.close());
    this.input.on('error', (error) => this.onerror?.(error));
  }

  private readonly reply = (message: JSONRPCMessage) => this.send(message);

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    await this.writer.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.pause();
    this.onclose?.();
    this.onClosed?.();
  }

  private onLine(line: string): void {
    const checked = checkFrame(line);
    if (!checked.ok) {
      if (checked.answer) void this.send(checked.answer as unknown as JSONRPCMessage);
      return;
    }
    // The frame as checkFrame parsed it (parsed once).
    const frame = checked.message as JSONRPCMessage;
    if (this.intercept?.(frame, this.reply)) return;
    this.onmessage?.(frame);
  }
}
