// Frame fuzzing for serve/: two drivers (a stdio stream, an HTTP endpoint in either era) that send the
// generator's frames (frame-generator.ts) and check every request-shaped frame gets exactly one answer. Used
// by test/serve/frame-fuzz.test.ts (short mode) and bench/fuzz-frames.ts (long mode).
import type { FuzzFrame } from './frame-generator.js';

export {
  EDGE_NUMBERS,
  type Expectation,
  type FuzzFrame,
  fuzzFrames,
  PROTOTYPE_NAMES,
  random,
} from './frame-generator.js';

/** What a fuzz run found. */
export interface FuzzReport {
  frames: number;
  /** Frames that needed an answer. */
  expected: number;
  /** Answers that never came (a client would wait for ever). */
  lost: number;
  /** Answers nobody asked for, or a second one for the same frame. */
  extra: number;
  /** Answers with the wrong error (an unknown method not -32601), an internal error (-32603), an HTTP 500. */
  wrong: number;
  /** HTTP requests that did not complete (a stream left open). */
  hangs: number;
  /** The server died (stdio: its output ended; HTTP: a request failed outright). */
  crashed: boolean;
  /** Up to five examples of what went wrong, for the failure message. */
  examples: string[];
}

/** Answers received, matched to what was asked. */
class Ledger {
  readonly waiting = new Map<string, { what: string; code: number | undefined }>();
  wrong = 0;
  nullsExpected = 0;
  nullsSeen = 0;
  extra = 0;
  readonly examples: string[] = [];

  expect(frame: FuzzFrame): void {
    if (!frame.expect.answer) return;
    if (frame.expect.id === null) this.nullsExpected++;
    else
      this.waiting.set(JSON.stringify(frame.expect.id), {
        what: `${frame.kind}: ${frame.bytes.toString('utf8').slice(0, 120)}`,
        code: frame.expect.code,
      });
  }

  answered(message: { id?: unknown; method?: unknown; error?: { code?: unknown } }): void {
    if (typeof message.method === 'string') return; // a notification or request of the server's own
    const code = message.error?.code;
    if (code === -32603) this.isWrong(`an internal error: ${JSON.stringify(message).slice(0, 200)}`);
    if (message.id === null || message.id === undefined) {
      this.nullsSeen++;
      return;
    }
    const key = JSON.stringify(message.id);
    const asked = this.waiting.get(key);
    if (!asked) {
      this.extra++;
      this.note(`unexpected answer ${JSON.stringify(message).slice(0, 160)}`);
      return;
    }
    this.waiting.delete(key);
    if (asked.code !== undefined && code !== asked.code)
      this.isWrong(`${asked.what} wanted ${asked.code}, got ${JSON.stringify(message).slice(0, 160)}`);
  }

  isWrong(example: string): void {
    this.wrong++;
    this.note(example);
  }

  get complete(): boolean {
    return this.waiting.size === 0 && this.nullsSeen >= this.nullsExpected;
  }

  note(example: string): void {
    if (this.examples.length < 5) this.examples.push(example);
  }

  report(frames: number, hangs: number, crashed: boolean): FuzzReport {
    const lostNulls = Math.max(0, this.nullsExpected - this.nullsSeen);
    for (const { what } of [...this.waiting.values()].slice(0, 3)) this.note(`no answer to ${what}`);
    if (lostNulls) this.note(`${lostNulls} answers with id null missing`);
    return {
      frames,
      expected: 0,
      lost: this.waiting.size + lostNulls,
      extra: this.extra + Math.max(0, this.nullsSeen - this.nullsExpected),
      wrong: this.wrong,
      hangs,
      crashed,
      examples: this.examples,
    };
  }
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

/** A stdio server as the fuzzer sees it: bytes in, lines out. */
export interface StdioEndpoint {
  write(bytes: Buffer): void;
  onLine(listener: (line: string) => void): void;
  /** True once the server's output ended (it died or closed). */
  ended(): boolean;
}

/**
 * Sends the frames to a stdio server in windows of `window`, each window followed by its answers (an
 * answer missing `quietMs` after the window was sent counts as lost).
 */
export async function fuzzStdio(
  endpoint: StdioEndpoint,
  frames: Iterable<FuzzFrame>,
  { window = 50, quietMs = 10_000 } = {},
): Promise<FuzzReport> {
  const ledger = new Ledger();
  endpoint.onLine((line) => {
    try {
      ledger.answered(JSON.parse(line) as { id?: unknown });
    } catch {
      ledger.extra++;
      ledger.note(`not JSON on stdout: ${line.slice(0, 120)}`);
    }
  });
  let count = 0;
  let expected = 0;
  let batch: FuzzFrame[] = [];
  const flush = async () => {
    for (const frame of batch) {
      ledger.expect(frame);
      if (frame.expect.answer) expected++;
      endpoint.write(Buffer.concat([frame.bytes, Buffer.from('\n')]));
    }
    batch = [];
    await until(() => ledger.complete || endpoint.ended(), quietMs);
  };
  for (const frame of frames) {
    count++;
    batch.push(frame);
    if (batch.length >= window) await flush();
    if (endpoint.ended()) break;
  }
  await flush();
  return { ...ledger.report(count, 0, endpoint.ended()), expected };
}

/** An HTTP endpoint as the fuzzer sees it: fetch-shaped (a handler's `request`, or `fetch` on a URL). */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' },
};

/** A header value fetch can send (a ByteString without controls), or undefined. */
const headerValue = (value: unknown) =>
  typeof value === 'string' && /^[\x20-\x7e]*$/.test(value) ? value : undefined;

/**
 * A frame as a 2026-07-28 client sends it: a request or notification whose params are an object (or
 * absent) gets the `_meta` envelope and its `Mcp-Method` / `Mcp-Name` headers; anything else goes as it is.
 */
function modernFrame(frame: FuzzFrame): {
  body: Uint8Array;
  headers: Record<string, string>;
  exact: boolean;
} {
  const raw = { body: new Uint8Array(frame.bytes), headers: {}, exact: true };
  let value: unknown;
  try {
    value = JSON.parse(frame.bytes.toString('utf8'));
  } catch {
    return raw;
  }
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(value) || typeof value.method !== 'string') return raw;
  const params = value.params === undefined ? {} : value.params;
  if (!isObject(params)) return raw;
  params._meta = { ...(isObject(params._meta) ? params._meta : {}), ...MODERN_ENVELOPE };
  value.params = params;
  const method = headerValue(value.method);
  const name = headerValue(params.name);
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    return raw; // nested too deep to write again: sent as it came
  }
  return {
    body: new Uint8Array(Buffer.from(text)),
    headers: {
      ...(method !== undefined ? { 'mcp-method': method } : {}),
      ...(name ? { 'mcp-name': name } : {}),
    },
    // A method no header can carry gets the transport's -32020 (SEP-2243), not the method's own answer.
    exact: method !== undefined,
  };
}

/**
 * Posts each frame to `url`, `parallel` at a time: in a 2025 session it opens first (`era: 'legacy'`), or as
 * stateless 2026-07-28 requests (`era: 'modern'`, see {@link modernFrame}). Every answer must be in the
 * response to its own POST (JSON or one SSE event), and a frame needing none gets 202.
 */
export async function fuzzHttp(
  fetch: FetchLike,
  url: string,
  frames: Iterable<FuzzFrame>,
  { parallel = 8, timeoutMs = 10_000, era = 'legacy' as 'legacy' | 'modern' } = {},
): Promise<FuzzReport> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  if (era === 'modern') headers['mcp-protocol-version'] = '2026-07-28';
  else await openSession(fetch, url, headers);
  return postAll(fetch, url, headers, frames, { parallel, timeoutMs, era });
}

/** Opens a 2025 session; its id and protocol version go into `headers`. */
async function openSession(fetch: FetchLike, url: string, headers: Record<string, string>): Promise<void> {
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
    }),
  });
  await init.text();
  const session = init.headers.get('mcp-session-id');
  if (session) headers['mcp-session-id'] = session;
  headers['mcp-protocol-version'] = '2025-06-18';
  await (
    await fetch(url, {
      method: 'POST',
      headers,
      body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    })
  ).text();
}

async function postAll(
  fetch: FetchLike,
  url: string,
  headers: Record<string, string>,
  frames: Iterable<FuzzFrame>,
  { parallel, timeoutMs, era }: { parallel: number; timeoutMs: number; era: 'legacy' | 'modern' },
): Promise<FuzzReport> {
  const ledger = new Ledger();
  let count = 0;
  let expected = 0;
  let hangs = 0;
  let crashed = false;
  const one = async (frame: FuzzFrame) => {
    const sent =
      era === 'modern' ? modernFrame(frame) : { body: new Uint8Array(frame.bytes), headers: {}, exact: true };
    const expect =
      sent.exact || !frame.expect.answer ? frame.expect : { answer: true as const, id: frame.expect.id };
    ledger.expect({ ...frame, expect });
    if (frame.expect.answer) expected++;
    const abort = AbortSignal.timeout(timeoutMs);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { ...headers, ...sent.headers },
        body: sent.body,
        signal: abort,
      });
      const body = await response.text();
      const messages = parseBody(body, response.headers.get('content-type') ?? '');
      if (response.status >= 500) ledger.isWrong(`HTTP ${response.status}: ${body.slice(0, 120)}`);
      // A stateless 2026-07-28 endpoint refuses a posted response at the transport (400): nothing to match.
      const refused =
        era === 'modern' && !frame.expect.answer && response.status >= 400 && response.status < 500;
      if (!frame.expect.answer && response.status !== 202 && !refused)
        ledger.note(
          `HTTP ${response.status} to ${frame.bytes.toString('utf8').slice(0, 100)}: ${body.slice(0, 100)}`,
        );
      if (!refused) for (const message of messages) ledger.answered(message);
    } catch (error) {
      if (abort.aborted) {
        hangs++;
        ledger.note(`hang: ${frame.kind}: ${frame.bytes.toString('utf8').slice(0, 120)}`);
      } else {
        crashed = true;
        ledger.note(`request failed: ${(error as Error).message}`);
      }
    }
  };
  const running = new Set<Promise<void>>();
  for (const frame of frames) {
    count++;
    const task = one(frame).finally(() => running.delete(task));
    running.add(task);
    if (running.size >= parallel) await Promise.race(running);
  }
  await Promise.all(running);
  return { ...ledger.report(count, hangs, crashed), expected };
}

function parseBody(body: string, type: string): { id?: unknown }[] {
  if (body.trim() === '') return [];
  if (type.includes('text/event-stream')) {
    return body
      .split('\n')
      .filter((line) => line.startsWith('data:') && line.slice(5).trim() !== '')
      .map((line) => JSON.parse(line.slice(5)) as { id?: unknown });
  }
  return [JSON.parse(body) as { id?: unknown }];
}
