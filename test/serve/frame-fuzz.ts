// Frame fuzzing for serve/: a seeded generator of hostile JSON-RPC frames and two drivers (a stdio stream,
// an HTTP handler) that check every request-shaped frame gets exactly one answer. Used by
// test/serve/frame-fuzz.test.ts (short mode) and bench/fuzz-frames.ts (long mode).

/** What a frame must get back: nothing (a notification or a response), or one answer with this id. */
export type Expectation = { answer: false } | { answer: true; id: string | number | null };

export interface FuzzFrame {
  /** Bytes on the wire (no newline inside). */
  bytes: Buffer;
  expect: Expectation;
  /** Which family the generator drew it from, for the report. */
  kind: string;
}

/** A small seeded PRNG (mulberry32): the same seed gives the same frames. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Every name `Object.prototype` and `Function.prototype` own (`constructor`, `__proto__`, `toString`,
 * `apply`…): a name from the wire that indexes a plain object finds these. As methods, tool names, keys.
 */
export const PROTOTYPE_NAMES: readonly string[] = [
  ...new Set([
    ...Object.getOwnPropertyNames(Object.prototype),
    ...Object.getOwnPropertyNames(Function.prototype),
    'prototype',
  ]),
];

const METHODS = [
  'ping',
  'initialize',
  'tools/list',
  'tools/call',
  'logging/setLevel',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'server/discover',
  'no/such/method',
  'notifications/initialized',
  '',
];

const deep = (depth: number, leaf: string) => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;

/** Generates `count` frames from `seed`; ids of answered frames are unique so answers can be matched. */
export function* fuzzFrames(seed: number, count: number, tools: string[] = []): Generator<FuzzFrame> {
  const rnd = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)] as T;
  let serial = 0;
  const validId = (): string | number => {
    serial++;
    return pick([
      () => 1_000_000 + serial,
      () => -serial,
      () => `s-${serial}`,
      () => `ünï ${serial} ☃`,
      () => `${' '.repeat(3)}${serial}`,
    ])();
  };
  const invalidIds: unknown[] = [1.5, null, {}, [], true, false, 2 ** 60, { id: 1 }, [1], -0.25];
  const params = (): unknown =>
    pick<() => unknown>([
      () => ({}),
      () => ({ cursor: pick([5, 'c', null, {}, []]) }),
      () => ({ level: pick(['debug', 'loud', 3, null]) }),
      () => ({
        name: pick([...tools, 'nope', 5, null, '']),
        arguments: pick([{}, { n: 2 }, { code: 1 }, 'x', []]),
      }),
      () => ({ _meta: pick([5, 'm', null, [], { progressToken: pick([{}, 1.5, 't', 7, null]) }]) }),
      () => ({ protocolVersion: pick(['2025-06-18', 5, '1999-01-01']), capabilities: pick([{}, 5]) }),
      () => ({ uri: pick(['x://y', 5, '', 'file:///etc/passwd']) }),
      () => 5,
      () => 'params',
      () => [1, 2],
      () => null,
      () => true,
    ])();
  const text = (value: unknown) => Buffer.from(JSON.stringify(value));
  for (let n = 0; n < count; n++) {
    const family = rnd();
    if (family < 0.3) {
      const id = validId();
      const message: Record<string, unknown> = { jsonrpc: '2.0', id, method: pick(METHODS) };
      if (rnd() < 0.8) message.params = params();
      yield { bytes: text(message), expect: { answer: true, id }, kind: 'request' };
    } else if (family < 0.42) {
      const message = { jsonrpc: '2.0', id: pick(invalidIds), method: pick(METHODS), params: params() };
      yield { bytes: text(message), expect: { answer: true, id: null }, kind: 'invalid id' };
    } else if (family < 0.5) {
      // Cancels name ids nobody uses: a cancelled request is rightly never answered.
      const method = pick([
        ...METHODS.filter((m) => m !== 'notifications/initialized'),
        'notifications/cancelled',
      ]);
      const message: Record<string, unknown> = { jsonrpc: '2.0', method };
      if (rnd() < 0.7)
        message.params = method === 'notifications/cancelled' ? { requestId: 'nobody' } : params();
      yield { bytes: text(message), expect: { answer: false }, kind: 'notification' };
    } else if (family < 0.56) {
      const message = {
        jsonrpc: '2.0',
        id: pick([validId(), ...invalidIds]),
        ...pick([{ result: {} }, { error: { code: 1, message: 'x' } }]),
      };
      yield { bytes: text(message), expect: { answer: false }, kind: 'response' };
    } else if (family < 0.64) {
      const batch = pick<() => unknown[]>([
        () => [],
        () => [{ jsonrpc: '2.0', id: validId(), method: 'ping' }],
        () => [1, 2, 3],
        () => [{ jsonrpc: '2.0', method: 'notifications/initialized' }],
      ])();
      yield { bytes: text(batch), expect: { answer: true, id: null }, kind: 'batch' };
    } else if (family < 0.7) {
      const depth = pick([300, 1000, 10_000]);
      const id = validId();
      const frame = pick<() => [string, string | number | null]>([
        () => [`{"jsonrpc":"2.0","id":${deep(depth, '1')},"method":"ping"}`, null],
        () => [
          `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"x","arguments":{"a":${deep(depth, '0')}}}}`,
          id,
        ],
        () => [deep(depth, '{}'), null],
      ])();
      yield { bytes: Buffer.from(frame[0]), expect: { answer: true, id: frame[1] }, kind: 'deep' };
    } else if (family < 0.8) {
      const id = validId();
      const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params: { x: 'MARK' } });
      const [before, after] = body.split('MARK') as [string, string];
      const bad = pick([
        Buffer.from([0xff, 0xfe]),
        Buffer.from([0xc3]),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from([0x80]),
      ]);
      yield {
        bytes: Buffer.concat([Buffer.from(before), bad, Buffer.from(after)]),
        expect: { answer: true, id },
        kind: 'invalid utf-8',
      };
    } else if (family < 0.88) {
      const garbage = pick([
        '{"jsonrpc":"2.0","id":1,"method":"ping"',
        'hello',
        '{"jsonrpc":"2.0",\u0000"id":1}',
        '\u0000\u0000',
        '{"a":"\u0000"}',
        '}{',
        "{'jsonrpc':'2.0'}",
        '{"jsonrpc":"2.0","id":1,"method":"ping"}}',
      ]);
      yield { bytes: Buffer.from(garbage), expect: { answer: true, id: null }, kind: 'not json' };
    } else if (family < 0.94) {
      const id = validId();
      const message = pick<() => Record<string, unknown>>([
        () => ({ jsonrpc: pick(['1.0', 2, null]), id, method: 'ping' }),
        () => ({ id, method: 'ping' }),
        () => ({ jsonrpc: '2.0', id, method: pick([5, null, {}, []]) }),
        () => ({ jsonrpc: '2.0', id }),
      ])();
      yield { bytes: text(message), expect: { answer: true, id }, kind: 'invalid request' };
    } else {
      yield {
        bytes: text(pick([5, 'x', null, true, 1.5])),
        expect: { answer: true, id: null },
        kind: 'scalar',
      };
    }
  }
}

/** What a fuzz run found. */
export interface FuzzReport {
  frames: number;
  /** Frames that needed an answer. */
  expected: number;
  /** Answers that never came (a client would wait for ever). */
  lost: number;
  /** Answers nobody asked for, or a second one for the same frame. */
  extra: number;
  /** HTTP requests that did not complete (a stream left open). */
  hangs: number;
  /** The server died (stdio: its output ended; HTTP: a request failed outright). */
  crashed: boolean;
  /** Up to five examples of what went wrong, for the failure message. */
  examples: string[];
}

/** Answers received, matched to what was asked. */
class Ledger {
  readonly waiting = new Map<string, string>();
  nullsExpected = 0;
  nullsSeen = 0;
  extra = 0;
  readonly examples: string[] = [];

  expect(frame: FuzzFrame): void {
    if (!frame.expect.answer) return;
    if (frame.expect.id === null) this.nullsExpected++;
    else
      this.waiting.set(
        JSON.stringify(frame.expect.id),
        `${frame.kind}: ${frame.bytes.toString('utf8').slice(0, 120)}`,
      );
  }

  answered(message: { id?: unknown; method?: unknown }): void {
    if (typeof message.method === 'string') return; // a notification or request of the server's own
    if (message.id === null || message.id === undefined) {
      this.nullsSeen++;
      return;
    }
    if (!this.waiting.delete(JSON.stringify(message.id))) {
      this.extra++;
      this.note(`unexpected answer ${JSON.stringify(message).slice(0, 160)}`);
    }
  }

  get complete(): boolean {
    return this.waiting.size === 0 && this.nullsSeen >= this.nullsExpected;
  }

  note(example: string): void {
    if (this.examples.length < 5) this.examples.push(example);
  }

  report(frames: number, hangs: number, crashed: boolean): FuzzReport {
    const lostNulls = Math.max(0, this.nullsExpected - this.nullsSeen);
    for (const what of [...this.waiting.values()].slice(0, 3)) this.note(`no answer to ${what}`);
    if (lostNulls) this.note(`${lostNulls} answers with id null missing`);
    return {
      frames,
      expected: 0,
      lost: this.waiting.size + lostNulls,
      extra: this.extra + Math.max(0, this.nullsSeen - this.nullsExpected),
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

/**
 * Opens a 2025 session on `url`, then posts each frame in it, `parallel` at a time; every answer must be
 * in the response to its own POST (JSON or one SSE event), and a frame needing none gets 202.
 */
export async function fuzzHttp(
  fetch: FetchLike,
  url: string,
  frames: Iterable<FuzzFrame>,
  { parallel = 8, timeoutMs = 10_000 } = {},
): Promise<FuzzReport> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
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

  const ledger = new Ledger();
  let count = 0;
  let expected = 0;
  let hangs = 0;
  let crashed = false;
  const one = async (frame: FuzzFrame) => {
    ledger.expect(frame);
    if (frame.expect.answer) expected++;
    const abort = AbortSignal.timeout(timeoutMs);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body: new Uint8Array(frame.bytes),
        signal: abort,
      });
      const body = await response.text();
      const messages = parseBody(body, response.headers.get('content-type') ?? '');
      if (!frame.expect.answer && response.status !== 202)
        ledger.note(
          `HTTP ${response.status} to ${frame.bytes.toString('utf8').slice(0, 100)}: ${body.slice(0, 100)}`,
        );
      for (const message of messages) ledger.answered(message);
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
