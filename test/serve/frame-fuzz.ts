// Frame fuzzing for serve/: a seeded generator of hostile JSON-RPC frames and two drivers (a stdio stream,
// an HTTP handler) that check every request-shaped frame gets exactly one answer. Used by
// test/serve/frame-fuzz.test.ts (short mode) and bench/fuzz-frames.ts (long mode).

/**
 * What a frame must get back: nothing (a notification or a response), or one answer with this id — and,
 * where the frame decides it (an unknown method: -32601), that error code.
 */
export type Expectation = { answer: false } | { answer: true; id: string | number | null; code?: number };

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

/**
 * JSON numbers at the edges, as text (JSON.stringify cannot write most of them): negative zero, the
 * largest double, 2^53 + 1 (not a safe integer), exponents past any double (Infinity, 0), long digit runs.
 */
export const EDGE_NUMBERS = [
  '-0',
  '0e0',
  '1e308',
  '-1e308',
  '9007199254740993',
  '-9007199254740993',
  '1e99999',
  '-1e-99999',
  '1E+2',
  '0.0000001',
  '123456789012345678901234567890',
  '5e-324',
];

/** One JSON value of every type as text, including the edges: for every field of every method. */
const EVERY_TYPE = [
  'null',
  'true',
  'false',
  '0',
  '1.5',
  ...EDGE_NUMBERS,
  '""',
  '"x"',
  '"\\ud800"',
  '"\\udfff x \\ud83d"',
  '"__proto__"',
  '"constructor"',
  '[]',
  '[1,"a",null]',
  '{}',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '{"toString":1,"valueOf":"x"}',
];

/** The fields each method's params schema has (and `_meta` with its progress token, everywhere). */
const FIELDS: Record<string, string[]> = {
  initialize: ['protocolVersion', 'capabilities', 'clientInfo'],
  ping: [],
  'tools/list': ['cursor'],
  'tools/call': ['name', 'arguments', 'task'],
  'logging/setLevel': ['level'],
  'resources/list': ['cursor'],
  'resources/read': ['uri'],
  'resources/templates/list': ['cursor'],
  'resources/subscribe': ['uri'],
  'prompts/list': ['cursor'],
  'prompts/get': ['name', 'arguments'],
  'completion/complete': ['ref', 'argument', 'context'],
  'server/discover': [],
};

/** Generates `count` frames from `seed`; ids of answered frames are unique so answers can be matched. */
export function* fuzzFrames(seed: number, count: number, tools: string[] = []): Generator<FuzzFrame> {
  const rnd = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)] as T;
  const names = [...tools, ...PROTOTYPE_NAMES];
  let serial = 0;
  const validId = (): string | number => {
    serial++;
    return pick([
      () => 1_000_000 + serial,
      () => -serial,
      () => `s-${serial}`,
      () => `ünï ${serial} ☃`,
      () => `${' '.repeat(3)}${serial}`,
      () => `\ud800 ${serial}`,
      () => `${pick(PROTOTYPE_NAMES)}-${serial}`,
    ])();
  };
  const invalidIds: unknown[] = [1.5, null, {}, [], true, false, 2 ** 60, { id: 1 }, [1], -0.25];
  const params = (): unknown =>
    pick<() => unknown>([
      () => ({}),
      () => ({ cursor: pick([5, 'c', null, {}, []]) }),
      () => ({ level: pick(['debug', 'loud', 3, null]) }),
      () => ({
        name: pick([...names, 'nope', 5, null, '']),
        arguments: pick([{}, { n: 2 }, { code: 1 }, 'x', [], { [pick(PROTOTYPE_NAMES)]: 'x' }]),
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
  const raw = (value: string) => Buffer.from(value);
  /** A request as text, with `fields` written verbatim (edge numbers, escapes, duplicated keys). */
  const request = (id: string | number, method: string, fields = '') =>
    `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(method)}${fields}}`;
  for (let n = 0; n < count; n++) {
    const family = rnd();
    if (family < 0.18) {
      const id = validId();
      const message: Record<string, unknown> = { jsonrpc: '2.0', id, method: pick(METHODS) };
      if (rnd() < 0.8) message.params = params();
      yield { bytes: text(message), expect: { answer: true, id }, kind: 'request' };
    } else if (family < 0.26) {
      // A method named after an Object.prototype / Function.prototype member: unknown, -32601, its own id.
      const id = validId();
      const method = pick(PROTOTYPE_NAMES);
      const withParams = rnd() < 0.5 ? `,"params":${pick(EVERY_TYPE.filter((t) => t.startsWith('{')))}` : '';
      yield {
        bytes: raw(request(id, method, withParams)),
        expect: { answer: true, id, code: -32601 },
        kind: 'prototype method',
      };
    } else if (family < 0.36) {
      // Every JSON type (edges included) in every field of every method's params.
      const id = validId();
      const method = pick(Object.keys(FIELDS));
      const fields = [...(FIELDS[method] ?? []), '_meta'];
      const field = pick(fields);
      const value =
        field === '_meta' && rnd() < 0.5 ? `{"progressToken":${pick(EVERY_TYPE)}}` : pick(EVERY_TYPE);
      const others =
        method === 'tools/call' && field !== 'name' ? `"name":${JSON.stringify(pick(names))},` : '';
      yield {
        bytes: raw(request(id, method, `,"params":{${others}${JSON.stringify(field)}:${value}}`)),
        expect: { answer: true, id },
        kind: 'schema sweep',
      };
    } else if (family < 0.41) {
      // Edge numbers as ids: those that are no safe integer (-0 and 1E+2 are) get id null.
      const number = pick(EDGE_NUMBERS.filter((e) => !Number.isSafeInteger(JSON.parse(e))));
      yield {
        bytes: raw(`{"jsonrpc":"2.0","id":${number},"method":"ping"}`),
        expect: { answer: true, id: null },
        kind: 'edge id',
      };
    } else if (family < 0.46) {
      // Duplicated keys: JSON.parse keeps the last one, and so must the answer.
      const [first, last] = [validId(), validId()];
      const frame = pick<() => [string, Expectation]>([
        () => [
          `{"jsonrpc":"2.0","id":${JSON.stringify(first)},"id":${JSON.stringify(last)},"method":"tools/list"}`,
          { answer: true, id: last },
        ],
        () => [
          `{"jsonrpc":"2.0","id":${JSON.stringify(last)},"method":"ping","method":${JSON.stringify(pick(PROTOTYPE_NAMES))}}`,
          { answer: true, id: last, code: -32601 },
        ],
        () => [
          `{"jsonrpc":"1.0","jsonrpc":"2.0","id":${JSON.stringify(last)},"method":"tools/list","params":{"cursor":5,"cursor":"c"}}`,
          { answer: true, id: last },
        ],
        () => [
          `{"jsonrpc":"2.0","id":${JSON.stringify(last)},"method":"tools/call","params":{"name":"x","name":${JSON.stringify(pick(names))},"arguments":{"a":1,"a":${pick(EVERY_TYPE)}}}}`,
          { answer: true, id: last },
        ],
      ])();
      serial++;
      yield { bytes: raw(frame[0]), expect: frame[1], kind: 'duplicate keys' };
    } else if (family < 0.5) {
      // Lone surrogate halves, escaped (valid JSON, not valid Unicode) in the method, a name, an argument.
      const id = validId();
      const frame = pick<() => [string, Expectation]>([
        () => [
          request(id, 'tools/call', ',"params":{"name":"\\ud800","arguments":{"\\udc00":"\\ud83d"}}'),
          { answer: true, id },
        ],
        () => [request(id, 'x\ud800'), { answer: true, id, code: -32601 }],
        () => [
          request(id, 'prompts/get', ',"params":{"name":"\\udfff","arguments":{"a":"\\ud800"}}'),
          { answer: true, id },
        ],
      ])();
      yield { bytes: raw(frame[0]), expect: frame[1], kind: 'surrogate' };
    } else if (family < 0.61) {
      const message = { jsonrpc: '2.0', id: pick(invalidIds), method: pick(METHODS), params: params() };
      yield { bytes: text(message), expect: { answer: true, id: null }, kind: 'invalid id' };
    } else if (family < 0.67) {
      // Cancels name ids nobody uses: a cancelled request is rightly never answered.
      const method = pick([
        ...METHODS.filter((m) => m !== 'notifications/initialized'),
        'notifications/cancelled',
        pick(PROTOTYPE_NAMES),
      ]);
      const message: Record<string, unknown> = { jsonrpc: '2.0', method };
      if (rnd() < 0.7)
        message.params = method === 'notifications/cancelled' ? { requestId: 'nobody' } : params();
      yield { bytes: text(message), expect: { answer: false }, kind: 'notification' };
    } else if (family < 0.71) {
      const message = {
        jsonrpc: '2.0',
        id: pick([validId(), ...invalidIds]),
        ...pick([{ result: {} }, { error: { code: 1, message: 'x' } }]),
      };
      yield { bytes: text(message), expect: { answer: false }, kind: 'response' };
    } else if (family < 0.76) {
      const batch = pick<() => unknown[]>([
        () => [],
        () => [{ jsonrpc: '2.0', id: validId(), method: 'ping' }],
        () => [1, 2, 3],
        () => [{ jsonrpc: '2.0', method: 'notifications/initialized' }],
      ])();
      yield { bytes: text(batch), expect: { answer: true, id: null }, kind: 'batch' };
    } else if (family < 0.8) {
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
    } else if (family < 0.86) {
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
    } else if (family < 0.91) {
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
    } else if (family < 0.96) {
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
      if (response.status >= 500) ledger.isWrong(`HTTP ${response.status}: ${body.slice(0, 120)}`);
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
