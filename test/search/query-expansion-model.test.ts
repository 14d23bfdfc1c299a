import { beforeAll, describe, expect, it } from 'vitest';
import { expandQuery, isProse } from '../../src/search/vectors/query-expansion.js';
import { BUILTIN_MODEL, StaticModel } from '../../src/search/vectors/static-model.js';

describe('query expansion with the shipped model', () => {
  let model: StaticModel;
  beforeAll(async () => {
    model = await StaticModel.load(BUILTIN_MODEL);
  });

  it('takes sentences of plain words as prose, never names', () => {
    expect(isProse('remove an entry from the cache')).toBe(true);
    expect(isProse('Returns the checksum of a buffer.')).toBe(true);
    expect(isProse('Command')).toBe(false);
    expect(isProse('parse the RotatingFileSink options')).toBe(false);
    expect(isProse('read_file and write')).toBe(false);
  });

  it('adds indexed code words near the sentence, each below the weight of a query word', () => {
    const query = 'checksum of a buffer';
    const indexed = new Set(['checksum', 'buffer', 'crc32', 'adler32', 'updatebytes', 'digest', 'socket']);
    const terms = expandQuery(model, query, model.encode(query), (term) => indexed.has(term));
    expect(terms.get('checksum')).toBe(1);
    expect(terms.get('buffer')).toBe(1);
    const added = [...terms].filter(([term]) => term !== 'checksum' && term !== 'buffer');
    expect(added.length).toBeGreaterThan(0);
    for (const [term, weight] of added) {
      expect(indexed.has(term)).toBe(true);
      expect(weight).toBeGreaterThan(0);
      expect(weight).toBeLessThan(0.5);
    }
    expect(terms.has('crc32') || terms.has('adler32')).toBe(true);
  });
});
