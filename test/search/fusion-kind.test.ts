import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodeIndex, type SearchMode } from '../../src/search/code-index/code-index.js';
import type { RankingWeights } from '../../src/search/ranking/ranking.js';
import { BUILTIN_MODEL, StaticModel } from '../../src/search/vectors/static-model.js';

describe('the cosine weight per kind of query (proseSemantic)', () => {
  let dir: string;
  let index: CodeIndex;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpkit-fusion-kind-'));
    writeFileSync(
      join(dir, 'cache.ts'),
      'export function evictEntry(cache: Map<string, Entry>, key: string) {\n  cache.delete(key);\n}\n',
    );
    writeFileSync(
      join(dir, 'store.ts'),
      'export function removeItem(store: Store, id: string) {\n  store.items.delete(id);\n  store.save();\n}\n',
    );
    writeFileSync(
      join(dir, 'retry.ts'),
      'export function retryRequest(request: Request, attempts: number) {\n  return fetchWithBackoff(request, attempts);\n}\n',
    );
    index = await CodeIndex.build(dir, {
      saved: false,
      model: await StaticModel.load(BUILTIN_MODEL),
    });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Each hit's path and its score relative to the first (what the ranking does, whatever the scale). */
  const ranked = (query: string, mode: SearchMode, weights: Partial<RankingWeights> = {}) => {
    const hits = index.search(query, 5, mode, weights);
    return hits.map((hit) => [hit.chunk.path, (hit.score / (hits[0]?.score ?? 1)).toFixed(6)]);
  };

  it('takes the cosine out of hybrid for a sentence at 0, and only for a sentence', () => {
    const sentence = 'remove an entry from the cache';
    const noCosine = { semantic: 0 };
    // The cosine moves the sentence's hybrid ranking by default (so the check below can fail).
    expect(ranked(sentence, 'hybrid')).not.toEqual(ranked(sentence, 'hybrid', noCosine));
    expect(ranked(sentence, 'hybrid', { proseSemantic: 0 })).toEqual(ranked(sentence, 'hybrid', noCosine));
    // A name is not a sentence: its hybrid ranking keeps the cosine.
    expect(ranked('evictEntry', 'hybrid')).not.toEqual(ranked('evictEntry', 'hybrid', noCosine));
    expect(ranked('evictEntry', 'hybrid', { proseSemantic: 0 })).toEqual(ranked('evictEntry', 'hybrid'));
  });
});
