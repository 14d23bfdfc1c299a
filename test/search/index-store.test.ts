import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Bm25Index } from '../../src/search/lexical/bm25.js';
import {
  INDEX_FILE,
  loadSavedIndex,
  type SavedIndex,
  saveIndex,
} from '../../src/search/stores/saved-index.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'mcpkit-index-store-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const place = { path: 'a.ts', startLine: 1, endLine: 1, language: 'typescript', symbols: ['a'] };
const stamps = new Map([['a.ts', { size: 1, mtimeMs: 5 }]]);
const index: SavedIndex = {
  files: stamps,
  chunks: [place],
  bm25: new Bm25Index([{ fields: [{ text: 'a' }] }]).parts(),
};

describe('saveIndex', () => {
  it('saves the index with a .gitignore of `*` beside it, so it is never committed', async () => {
    expect(await saveIndex(root, index)).toBe(join(root, INDEX_FILE));
    expect(await readFile(join(root, '.mcpkit/.gitignore'), 'utf8')).toBe('*\n');
    const saved = await loadSavedIndex(root);
    expect(typeof saved === 'object' && saved.files.get('a.ts')).toEqual(stamps.get('a.ts'));
    expect(typeof saved === 'object' && saved.chunks).toEqual([place]);
    expect(typeof saved === 'object' && Bm25Index.fromParts(saved.bm25).search('a')).toEqual(
      new Bm25Index([{ fields: [{ text: 'a' }] }]).search('a'),
    );
  });

  it('leaves a .gitignore the user wrote in .mcpkit/ as it is', async () => {
    await mkdir(join(root, '.mcpkit'));
    await writeFile(join(root, '.mcpkit/.gitignore'), 'search-index.bin\n!settings.json\n');
    await saveIndex(root, index);
    await saveIndex(root, index);
    expect(await readFile(join(root, '.mcpkit/.gitignore'), 'utf8')).toBe(
      'search-index.bin\n!settings.json\n',
    );
  });
});
