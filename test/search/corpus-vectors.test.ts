import { describe, expect, it } from 'vitest';
import { CorpusVectors } from '../../src/search/vectors/corpus-vectors.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);

// Two topics that share no words: terms of one topic must land near its documents, far from the other's.
const corpus = [
  'http request header response status',
  'request retry backoff status timeout',
  'response body header stream',
  'cache evict entry ttl',
  'cache entry size limit evict',
  'ttl expire entry cache',
].map((text) => text.split(' '));

describe('CorpusVectors', () => {
  it('puts terms near the documents they occur with, and an unknown word nowhere', async () => {
    const vectors = await CorpusVectors.build(corpus, { dimensions: 2 });
    const [http, , , cache] = vectors.documents as Float32Array[];
    expect(Math.hypot(...(http as Float32Array))).toBeCloseTo(1, 5);
    // "retry" never occurs with "header", yet it is an http word: closer to the http document than to a cache one.
    const retry = vectors.encode(['retry']);
    expect(dot(retry, http as Float32Array)).toBeGreaterThan(0.5);
    expect(dot(retry, cache as Float32Array)).toBeLessThan(0.1);
    expect(dot(vectors.encode(['expire']), cache as Float32Array)).toBeGreaterThan(0.5);
    expect([...vectors.encode(['unheard'])].every((x) => x === 0)).toBe(true);
  });

  it('learns the same vectors from the same corpus (a seeded projection)', async () => {
    const a = await CorpusVectors.build(corpus, { dimensions: 3 });
    const b = await CorpusVectors.build(corpus, { dimensions: 3 });
    expect(a.documents.map((v) => [...v])).toEqual(b.documents.map((v) => [...v]));
  });
});
