import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter, type SkippedLine } from '../../src/internal/line-splitter.js';
import { checkFrame } from '../../src/serve/frames.js';
import { invalidParams } from '../../src/serve/request-params.js';
import { EDGE_NUMBERS, PROTOTYPE_NAMES } from './frame-fuzz.js';

// Property-based tests (fast-check) of what stands between the wire and the SDK: the frame checker and
// the line splitter. Each property runs a few hundred generated cases; a failure prints the smallest
// counterexample fast-check finds and the seed to replay it.

// A fixed seed: the same frames on every run (CI must not turn red on a counterexample drawn once); FC_SEED=random to explore.
const RUNS = {
  numRuns: 300,
  ...(process.env.FC_SEED === 'random' ? {} : { seed: Number(process.env.FC_SEED ?? 20261128) }),
};

/** Names that index plain objects by mistake, spec methods, and anything else. */
const method = fc.oneof(
  fc.constantFrom(...PROTOTYPE_NAMES),
  fc.constantFrom('ping', 'initialize', 'tools/list', 'tools/call', 'logging/setLevel', 'resources/read'),
  fc.constantFrom('prompts/get', 'completion/complete', 'server/discover', 'resources/subscribe'),
  fc.string({ unit: 'binary' }),
);
/** Any JSON value, with prototype names as keys and edge numbers among the values. */
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false, 0, -0, 1.5, 2 ** 53 + 1, 1e308, Number.MIN_VALUE),
    fc.string({ unit: 'binary' }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string()), tie('value'), { maxKeys: 4 }),
  ),
})).value;
const requestId = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.maxSafeInteger(),
  fc.constantFrom(...PROTOTYPE_NAMES),
);

describe('checkFrame (properties)', () => {
  it('never throws, whatever the text (JSON or not, edge numbers as text, lone surrogates)', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      json.map((v) => JSON.stringify(v) ?? 'null'),
      fc
        .tuple(requestId, method, fc.constantFrom(...EDGE_NUMBERS))
        .map(
          ([id, m, n]) =>
            `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(m)},"params":{"cursor":${n},"x":${n}}}`,
        ),
    );
    fc.assert(
      fc.property(text, (t) => {
        checkFrame(t);
      }),
      RUNS,
    );
  });

  it('a request gets through, or one answer carrying its own id with -32600 or -32602', () => {
    fc.assert(
      fc.property(requestId, method, fc.option(json, { nil: undefined }), (id, m, params) => {
        const frame = { jsonrpc: '2.0', id, method: m, ...(params === undefined ? {} : { params }) };
        const checked = checkFrame(JSON.stringify(frame));
        if (checked.ok) {
          expect(checked.message).toEqual(JSON.parse(JSON.stringify(frame)));
          return;
        }
        expect(checked.answer?.id).toEqual(id);
        expect([-32600, -32602]).toContain(checked.answer?.error.code);
        expect(checked.answer?.error.message).not.toContain('\n');
      }),
      RUNS,
    );
  });

  it('a method no spec schema knows (an Object.prototype name) passes with any object params', () => {
    const params = fc.dictionary(fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string()), json, {
      maxKeys: 4,
    });
    fc.assert(
      fc.property(requestId, fc.constantFrom(...PROTOTYPE_NAMES), params, (id, m, p) => {
        delete p._meta;
        expect(checkFrame(JSON.stringify({ jsonrpc: '2.0', id, method: m, params: p })).ok).toBe(true);
        expect(invalidParams(m, p)).toBeUndefined();
      }),
      RUNS,
    );
  });

  it('a notification or a response is never answered, broken or not', () => {
    const notification = fc
      .tuple(method, fc.option(json, { nil: undefined }))
      .map(([m, params]) => ({ jsonrpc: '2.0', method: m, ...(params === undefined ? {} : { params }) }));
    const response = fc
      .tuple(fc.oneof(requestId, json), fc.boolean(), json)
      .map(([id, ok, value]) => ({ jsonrpc: '2.0', id, ...(ok ? { result: value } : { error: value }) }));
    fc.assert(
      fc.property(fc.oneof(notification, response), (frame) => {
        const checked = checkFrame(JSON.stringify(frame));
        if (!checked.ok) expect(checked.answer).toBeUndefined();
      }),
      RUNS,
    );
  });

  it('text that is not JSON gets -32700 with id null', () => {
    const broken = fc.string({ unit: 'binary' }).filter((t) => {
      try {
        JSON.parse(t);
        return false;
      } catch {
        return true;
      }
    });
    fc.assert(
      fc.property(broken, (t) => {
        expect(checkFrame(t)).toEqual({
          ok: false,
          answer: {
            jsonrpc: '2.0',
            id: null,
            error: { code: -32700, message: 'Parse error: not valid JSON' },
          },
        });
      }),
      RUNS,
    );
  });
});

describe('LineSplitter (properties)', () => {
  /** A line: any text without a newline (a CR inside, lone surrogates and astral characters included). */
  const line = fc
    .string({
      unit: fc.oneof(
        fc.constantFrom('\r', ' ', '\u2028', '\ud800', '😀'),
        fc.string({ minLength: 1, maxLength: 1 }),
      ),
    })
    .map((s) => s.replaceAll('\n', ''));
  /** Cuts `text` into chunks at the given points (anywhere: mid-line, mid-CRLF, between surrogate halves). */
  const cut = (text: string, points: number[]) => {
    const at = [...new Set(points.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
    const chunks: string[] = [];
    let from = 0;
    for (const p of at) {
      chunks.push(text.slice(from, p));
      from = p;
    }
    chunks.push(text.slice(from));
    return chunks;
  };
  /** What a splitter must emit for these lines: each without one trailing CR, blank ones left out. */
  const expected = (lines: string[]) =>
    lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)).filter((l) => l.trim() !== '');

  it('emits every non-blank line once, in order, however the stream is cut; scans each unit once', () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (lines, points) => {
          const text = lines.map((l) => `${l}\n`).join('');
          const seen: string[] = [];
          const splitter = new LineSplitter((l) => seen.push(l));
          for (const chunk of cut(text, points)) splitter.push(chunk);
          splitter.flush();
          expect(seen).toEqual(expected(lines));
          expect(splitter.scanned).toBe(text.length);
        },
      ),
      RUNS,
    );
  });

  it('a last line without a newline comes out on flush', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (lines, points) => {
          const text = lines.join('\n');
          const seen: string[] = [];
          const splitter = new LineSplitter((l) => seen.push(l));
          for (const chunk of cut(text, points)) splitter.push(chunk);
          splitter.flush();
          expect(seen).toEqual(expected(lines));
        },
      ),
      RUNS,
    );
  });

  it('under a cap: lines over it are reported once with their length and ends, the others emitted', () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.integer({ min: 1, max: 40 }),
        (lines, points, cap) => {
          const text = lines.map((l) => `${l}\n`).join('');
          const seen: string[] = [];
          const skipped: SkippedLine[] = [];
          const splitter = new LineSplitter((l) => seen.push(l), {
            maxLineLength: cap,
            onOverflow: (s) => skipped.push(s),
          });
          for (const chunk of cut(text, points)) splitter.push(chunk);
          splitter.flush();
          const long = lines.filter((l) => l.length > cap);
          expect(seen).toEqual(expected(lines.filter((l) => l.length <= cap)));
          expect(skipped.map((s) => s.length)).toEqual(long.map((l) => l.length));
          expect(skipped.map((s) => s.tail)).toEqual(
            long.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l).slice(-256)),
          );
          for (const [i, s] of skipped.entries()) expect((long[i] ?? '').startsWith(s.head)).toBe(true);
        },
      ),
      RUNS,
    );
  });
});
