import { describe, expect, it } from 'vitest';
import { Bm25Index, stem, synonymsOf, tokenize, topK } from '../../src/search/index.js';

describe('tokenize', () => {
  it('splits identifiers at case, underscore, dash and digit boundaries, keeping the whole word too', () => {
    expect(tokenize('readFileSync')).toEqual(['readfilesync', 'read', 'file', 'sync']);
    expect(tokenize('create_issue')).toEqual(['creat', 'issu']);
    expect(tokenize('get-HTTPResponse2')).toEqual(['get', 'httpresponse2', 'http', 'respons', '2']);
  });

  it('reads words in any script, characters outside the BMP included, and splits at everything else', () => {
    expect(tokenize('café→naïve 日本語 x𝔸y 😀emoji', { stopwords: false })).toEqual([
      'café',
      'naïv',
      '日本語',
      'x𝔸y',
      'x',
      '𝔸y',
      'emoji',
    ]);
  });

  it('drops stopwords and folds plural, -ing and -ed', () => {
    expect(tokenize('Creating the issues for my repositories')).toEqual(['creat', 'issu', 'repository']);
    expect(tokenize('create an issue')).toEqual(['creat', 'issu']);
    expect([stem('stopped'), stem('running'), stem('boxes'), stem('status'), stem('class')]).toEqual([
      'stop',
      'run',
      'box',
      'status',
      'class',
    ]);
  });

  it('keeps words whose stem would have no vowel: string is not str', () => {
    expect([stem('string'), stem('strings'), stem('spring'), stem('shed')]).toEqual([
      'string',
      'string',
      'spring',
      'shed',
    ]);
    expect(tokenize('toString')).toEqual(['tostring', 'string']);
  });
});

describe('Bm25Index', () => {
  const docs = [
    { fields: [{ text: 'read_file', weight: 3 }, { text: 'Read a file from disk' }] },
    { fields: [{ text: 'write_file', weight: 3 }, { text: 'Write a file to disk' }] },
    { fields: [{ text: 'list_directory', weight: 3 }, { text: 'List the entries of a folder' }] },
  ];
  const index = new Bm25Index(docs);

  it('ranks the document whose weighted name matches first, and scores nothing for unknown words', () => {
    const hits = index.search('read file', 3);
    expect(hits.map((h) => h.doc)).toEqual([0, 1]);
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score as number);
    expect(index.search('quantum chromodynamics')).toEqual([]);
  });

  it('gives rare terms a higher IDF than common ones', () => {
    expect(index.idf('director')).toBe(0);
    expect(index.idf('directory')).toBeGreaterThan(index.idf('file'));
  });

  it('topK keeps the best in order and ties by position', () => {
    expect(topK(Float64Array.from([1, 3, 0, 3, 2]), 3)).toEqual([
      { doc: 1, score: 3 },
      { doc: 3, score: 3 },
      { doc: 4, score: 2 },
    ]);
  });
});

describe('synonyms', () => {
  it('maps a word to the other words of its groups, stemmed', () => {
    expect(synonymsOf('folder')).toEqual(['directory', 'dir']);
    expect(synonymsOf(stem('removing'))).toContain(stem('delete'));
    expect(synonymsOf(stem('remove'))).toContain(stem('delete'));
    expect(synonymsOf('zebra')).toEqual([]);
  });
});
