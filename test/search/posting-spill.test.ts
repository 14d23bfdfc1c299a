// A build that writes its postings to disk in segments gives the index an in-memory build gives, answers queries
// from the segments while it runs, and leaves no file behind.
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CodeIndex, SEARCH_MODES } from '../../src/search/code-index/code-index.js';
import { Bm25Index } from '../../src/search/lexical/bm25.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-spill-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const WORDS = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda'.split(' ');
const text = (i: number) => `${WORDS[i % 11]} ${WORDS[(i * 7) % 11]} item${i % 13} ${WORDS[(i * 3) % 11]}`;

describe('postings spilled to disk during a build', () => {
  it('score as in memory while the build runs, and assemble into the same arrays', async () => {
    const spillDir = join(dir, 'spill');
    await cp(join(import.meta.dirname, 'fixtures.ts'), join(spillDir, 'keep.ts'));
    const spilled = new Bm25Index();
    expect(spilled.spillTo(16, spillDir)).toBe(true);
    const memory = new Bm25Index();
    for (let i = 0; i < 300; i++) {
      spilled.add({ fields: [{ text: text(i) }] });
      memory.add({ fields: [{ text: text(i) }] });
      if (i % 50 === 49)
        for (const query of ['alpha item3', 'zeta', 'kappa lambda item12'])
          expect([...spilled.scores(query)]).toEqual([...memory.scores(query)]);
    }
    // On Linux the file is unlinked as soon as it is open: nothing is left behind even if the process is killed.
    if (process.platform === 'linux') expect(await readdir(spillDir)).toEqual(['keep.ts']);
    expect(spilled.parts()).toEqual(memory.parts());
    expect(await readdir(spillDir)).toEqual(['keep.ts']);
  });

  it('of a tree: the same index, ranked results and saved bytes as a build in memory', async () => {
    await cp(join(import.meta.dirname, '../../src/search'), join(dir, 'src'), { recursive: true });
    const memory = await CodeIndex.build(dir, { saved: false, workers: 0, spill: false });
    const spilled = await CodeIndex.build(dir, { saved: false, workers: 0, spill: { every: 2000 } });
    expect(spilled.chunkCount).toBe(memory.chunkCount);
    for (const mode of SEARCH_MODES)
      for (const query of ['spill postings to disk', 'tokenize camelCase', 'SSRF guard for clones']) {
        const show = (index: CodeIndex) =>
          index.search(query, 10, mode).map((hit) => `${hit.chunk.path}:${hit.chunk.startLine} ${hit.score}`);
        expect(show(spilled), `${mode}: ${query}`).toEqual(show(memory));
      }
    const a = await readFile(await memory.save(join(dir, 'memory.bin')));
    const b = await readFile(await spilled.save(join(dir, 'spilled.bin')));
    expect(b.equals(a)).toBe(true);
  }, 120_000);
});
