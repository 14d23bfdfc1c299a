// Vectors of a corpus larger than the sample the basis is learned from: every chunk gets the vector the model
// gives its own words, a unit vector, without a float matrix of all the chunks.
import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../../src/search/lexical/bm25.js';
import { tokenize } from '../../src/search/lexical/tokenize.js';
import { learnVectors } from '../../src/search/vectors/learn-vectors.js';

const TOPICS = [
  'http request header parse response status',
  'file read write buffer stream close',
  'thread lock queue wait notify pool',
  'string format locale number date',
];

describe('vectors learned on a sample', () => {
  it("give every chunk the model's vector of its own words", async () => {
    const texts = Array.from({ length: 400 }, (_, i) => {
      const words = (TOPICS[i % 4] as string).split(' ');
      return `${words[i % 6]} ${words[(i * 5) % 6]} ${words[(i * 7) % 6]} item${i % 17} ${TOPICS[(i + 1) % 4]?.split(' ')[i % 6]}`;
    });
    const index = new Bm25Index(texts.map((text) => ({ fields: [{ text }] })));
    index.remove(7);
    const { corpus, vectors } = await learnVectors(index.parts(), (term) => index.idOf(term), 50);
    expect(vectors.size).toBe(400);
    for (const doc of [0, 1, 2, 3, 99, 200, 399]) {
      const want = corpus.encode(tokenize(texts[doc] as string));
      const got = vectors.cosines(want, 400)[doc] as number;
      // int8 rows: a unit vector's cosine with itself within rounding.
      expect(got).toBeGreaterThan(0.98);
    }
    // A query about threads ranks a thread chunk first.
    const scores = vectors.cosines(corpus.encode(tokenize('thread pool wait')), 400);
    const best = scores.indexOf(Math.max(...scores));
    expect(texts[best]).toMatch(/thread|lock|queue|wait|notify|pool/);
    expect(scores[7]).toBe(0);
  });
});
