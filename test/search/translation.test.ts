import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodeIndex } from '../../src/search/code-index/code-index.js';
import { Translation } from '../../src/search/vectors/translation.js';

describe('English → code translation (models/code-words/translation.json)', () => {
  let dir: string;
  let index: CodeIndex;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpkit-translation-'));
    // No word of the query below is in this code: only the translation of `wait` ties them.
    writeFileSync(
      join(dir, 'join.ts'),
      'export function joinThread(thread: Thread, timeout: number) {\n  if (thread.interrupted) throw new InterruptedError();\n  return thread.parkNanos(timeout);\n}\n',
    );
    writeFileSync(
      join(dir, 'colors.ts'),
      'export function hexToRgb(hex: string) {\n  return parseInt(hex, 16);\n}\n',
    );
    // Only the learned abbreviation of `context` (ctx) ties this file to a query in words.
    writeFileSync(
      join(dir, 'scope.ts'),
      'export function withCtx(ctx: Ctx, fn: () => void) {\n  ctx.enter();\n  fn();\n  ctx.leave();\n}\n',
    );
    index = await CodeIndex.build(dir, { saved: false, vectors: 'none' });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('expands an English word to the indexed code tokens written under it, each below a query word', () => {
    const indexed = new Set(['timeout', 'interrupt', 'queu', 'socket']);
    const terms = Translation.builtin().expand('wait for the result', 2, (t) => indexed.has(t));
    expect(terms.get('wait')).toBe(1);
    expect(terms.get('timeout')).toBeGreaterThan(0);
    expect(terms.get('timeout')).toBeLessThan(1);
    expect(terms.has('socket')).toBe(false);
  });

  it('finds code that shares no word with the sentence only when the translation weight is on', () => {
    const paths = (weights: { translation: number }) =>
      index.search('wait until it is done', 5, 'bm25', weights).map((hit) => hit.chunk.path);
    expect(paths({ translation: 0 })).toEqual([]);
    expect(paths({ translation: 2 })[0]).toBe('join.ts');
  });

  it("adds a word's indexed abbreviations at the abbreviation weight, for any query", () => {
    const table = new Translation(new Map(), new Map([['button', ['btn', 'bn']]]));
    const terms = table.abbreviate('onClick button', 0.8, (t) => t === 'btn');
    expect(terms.get('button')).toBe(1);
    expect(terms.get('btn')).toBe(0.8);
    expect(terms.has('bn')).toBe(false);
  });

  it('finds code written with the abbreviation of a query word only when the abbreviation weight is on', () => {
    const paths = (weights: { abbreviation: number }) =>
      index.search('keep the context', 5, 'bm25', weights).map((hit) => hit.chunk.path);
    expect(paths({ abbreviation: 0 })).toEqual([]);
    expect(paths({ abbreviation: 0.8 })[0]).toBe('scope.ts');
  });
});
