import type { SkippedLine } from './line-splitter.js';

/** A JSON-RPC id as it appears on the wire. */
export type FrameId = string | number;

/** What the ends of a skipped JSON-RPC line say about the frame it carried. */
export interface SkippedFrame {
  /** `request` when the frame named a method, `response` when it carried a result or an error. */
  kind: 'request' | 'response';
  id: FrameId;
}

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
const JSONRPC = String.raw`"jsonrpc"\s*:\s*"2\.0"`;
// `{"jsonrpc":"2.0","id":1,"result":…` (Python, Go, most servers) — the kind is the key after the id.
const ID_FIRST = new RegExp(
  String.raw`^\s*\{\s*(?:${JSONRPC}\s*,\s*)?"id"\s*:\s*${ID}\s*,\s*"(result|error|method)"\s*:`,
);
// `{"result":…,"jsonrpc":"2.0","id":1}` (the TypeScript SDKs) — the kind is the first key, the id is last.
const KIND_FIRST = /^\s*\{\s*"(result|error|method)"\s*:/;
const ID_LAST = new RegExp(
  String.raw`(?:${JSONRPC}\s*,\s*"id"\s*:\s*${ID}|"id"\s*:\s*${ID}\s*,\s*${JSONRPC})\s*\}\s*$`,
);

/**
 * The id and kind of the frame on a line too long to read, from its first and last characters only, so the
 * request it carried (or the one it answered) can be failed at once instead of waiting for a time-out.
 * Undefined when the ends do not show both with certainty: an id nested in the payload never matches, since
 * only the frame's first key or its very last characters are read.
 */
export function skippedFrame(line: SkippedLine): SkippedFrame | undefined {
  const first = ID_FIRST.exec(line.head);
  if (first) return frame(first[2] as string, first[1] as string);
  const kind = KIND_FIRST.exec(line.head);
  const last = ID_LAST.exec(line.tail);
  if (!kind || !last) return undefined;
  return frame(kind[1] as string, (last[1] ?? last[2]) as string);
}

function frame(key: string, id: string): SkippedFrame {
  return { kind: key === 'method' ? 'request' : 'response', id: JSON.parse(id) as FrameId };
}
