// An index built on worker threads is the index one thread builds: same chunks, same term ids, same ranked
// results and the same saved bytes; a worker's term table that starts again changes nothing.
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Chunk } from '../../src/search/chunks/chunker.js';
import { CodeIndex, SEARCH_MODES } from '../../src/search/code-index/code-index.js';
import { walk } from '../../src/search/files/walk.js';
import { Bm25Index } from '../../src/search/lexical/bm25.js';
import { chunkFiles } from '../../src/search/lexical/chunk-pool.js';
import { EncoderTerms, TermEncoder } from '../../src/search/lexical/file-terms.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-chunk-pool-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const QUERIES = [
  'retry with backoff',
  'parse a tool result',
  'PostingStore',
  'walk the gitignore rules',
  'oauth token',
];

describe('an index built on worker threads', () => {
  it('equals the one-thread index: chunks, ranked results in every mode, saved bytes', async () => {
    // Real code of many kinds: this repository's own sources.
    for (const part of ['search', 'gateway'])
      await cp(join(import.meta.dirname, '../../src', part), join(dir, 'src', part), { recursive: true });
    const one = await CodeIndex.build(dir, { saved: false, workers: 0 });
    const pooled = await CodeIndex.build(dir, { saved: false, workers: 2 });
    expect(one.files).toBeGreaterThan(60);
    expect(pooled.report.workers).toBe(2);
    expect(one.report.workers ?? 0).toBe(0);
    expect(pooled.files).toBe(one.files);
    expect(pooled.chunkCount).toBe(one.chunkCount);
    expect(pooled.chunks.map(({ path, startLine }) => `${path}:${startLine}`)).toEqual(
      one.chunks.map(({ path, startLine }) => `${path}:${startLine}`),
    );
    for (const mode of SEARCH_MODES)
      for (const query of QUERIES) {
        const show = (index: CodeIndex) =>
          index.search(query, 10, mode).map((hit) => `${hit.chunk.path}:${hit.chunk.startLine} ${hit.score}`);
        expect(show(pooled), `${mode}: ${query}`).toEqual(show(one));
      }
    const a = await readFile(await one.save(join(dir, 'one.bin')));
    const b = await readFile(await pooled.save(join(dir, 'pooled.bin')));
    expect(b.equals(a)).toBe(true);
  }, 120_000);

  it("numbers terms as one encoder would when a worker's table starts again", () => {
    const chunk = (path: string, content: string): Chunk => ({
      path,
      startLine: 1,
      endLine: 1,
      language: 'typescript',
      symbols: [],
      content,
    });
    const files = [
      [chunk('a.ts', 'readFile writeFile openSocket')],
      [chunk('b.ts', 'closeSocket readFile'), chunk('b.ts', 'parseHeader openSocket')],
      [chunk('c.ts', 'writeFile zebra parseHeader')],
    ];
    const build = (encoder: TermEncoder) => {
      const index = new Bm25Index();
      let table = new EncoderTerms();
      for (const file of files) {
        const terms = encoder.encode(file);
        table = table.take(terms);
        table.resolve(terms, (term) => index.intern(term));
        terms.places.forEach((_, c) => {
          index.addCounted(
            terms.terms,
            terms.weighted,
            terms.counts,
            terms.lengths[c] as number,
            terms.starts[c],
            terms.starts[c + 1],
          );
        });
      }
      return index.parts();
    };
    const small = new TermEncoder(false, 3);
    const whole = build(new TermEncoder());
    expect(build(small)).toEqual(whole);
    expect(whole).toEqual(
      new Bm25Index(
        files.flat().map((c) => ({
          fields: [
            { text: c.content, weight: 1 },
            { text: '', weight: 3 },
            { text: c.path, weight: 2 },
          ],
        })),
      ).parts(),
    );
  });
});

describe('a worker whose heap grows large', () => {
  it('is replaced by a fresh one, and the files come out as one thread chunks them', async () => {
    await cp(join(import.meta.dirname, '../../src/search'), join(dir, 'src'), { recursive: true });
    const files = await walk(dir, undefined, { sniff: false });
    const run = async (options: Parameters<typeof chunkFiles>[4]) => {
      const index = new Bm25Index();
      const places: string[] = [];
      const report = await chunkFiles(
        dir,
        files,
        new Set(),
        (_file, counted) => {
          if (!counted) return;
          counted.table.resolve(counted.terms, (term) => index.intern(term));
          const { terms } = counted;
          terms.places.forEach((place, c) => {
            places.push(`${place.path}:${place.startLine}-${place.endLine}`);
            index.addCounted(
              terms.terms,
              terms.weighted,
              terms.counts,
              terms.lengths[c] as number,
              terms.starts[c],
              terms.starts[c + 1],
            );
          });
        },
        options,
      );
      return { report, places, parts: index.parts() };
    };
    const one = await run({ workers: 0 });
    // Every worker is over a budget of 0 MB after its first file: each file is chunked by a fresh worker.
    const replaced = await run({ workers: 2, retireMb: 0 });
    expect(replaced.report.workerRestarts).toBeGreaterThan(2);
    expect(replaced.places).toEqual(one.places);
    expect(replaced.parts).toEqual(one.parts);
  }, 120_000);
});
