// The frame fuzzer's generator: seeded, adversarial by construction (see docs/serve.md). The drivers that
// send its frames and count the answers are in frame-fuzz.ts.

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
