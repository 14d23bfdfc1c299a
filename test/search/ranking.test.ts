import { describe, expect, it } from 'vitest';
import type { Chunk } from '../../src/search/chunks/chunker.js';
import { DEFAULT_RANKING, rankChunks } from '../../src/search/ranking/ranking.js';

const chunk = (path: string, startLine: number): Chunk => ({
  path,
  startLine,
  endLine: startLine + 9,
  language: 'typescript',
  symbols: [],
  content: '',
});

/** Ranks raw scores over the given chunks with the default weights but for `override`. */
function rank(chunks: Chunk[], raw: number[], query: string, override = {}) {
  return rankChunks(
    Float64Array.from(raw),
    query,
    10,
    { chunkAt: (doc) => chunks[doc] as Chunk, twins: new Set(), legacy: new Set() },
    { ...DEFAULT_RANKING, ...override },
  ).map((hit) => `${hit.chunk.path}:${hit.chunk.startLine}`);
}

describe('rankChunks', () => {
  it('ranks a file matching in many chunks above one slightly better chunk of a neighbour', () => {
    const chunks = [chunk('lib/helpers.ts', 1), ...[1, 11, 21, 31].map((line) => chunk('lib/pool.ts', line))];
    const raw = [1.0, 0.9, 0.8, 0.8, 0.7];
    expect(rank(chunks, raw, 'connection reuse', { fileEvidence: 0 })[0]).toBe('lib/helpers.ts:1');
    expect(rank(chunks, raw, 'connection reuse')[0]).toBe('lib/pool.ts:1');
  });

  it('weighs a file matching in many chunks more for a question than for a statement', () => {
    const chunks = [chunk('lib/helpers.ts', 1), ...[1, 11, 21, 31].map((line) => chunk('lib/pool.ts', line))];
    const raw = [1.0, 0.8, 0.7, 0.7, 0.6];
    expect(rank(chunks, raw, 'reuse a connection')[0]).toBe('lib/helpers.ts:1');
    expect(rank(chunks, raw, 'how is a connection reused')[0]).toBe('lib/pool.ts:1');
    expect(rank(chunks, raw, 'How are connections reused?')[0]).toBe('lib/pool.ts:1');
  });

  it("lifts a file whose name's words are all in the query", () => {
    const chunks = [chunk('sinks/base_sink.h', 1), chunk('sinks/rotating_file_sink.h', 1)];
    const raw = [1.0, 0.9];
    expect(rank(chunks, raw, 'rotating file sink', { fileName: 0, path: 0 })[0]).toBe('sinks/base_sink.h:1');
    expect(rank(chunks, raw, 'rotating file sink', { path: 0 })[0]).toBe('sinks/rotating_file_sink.h:1');
  });
});
