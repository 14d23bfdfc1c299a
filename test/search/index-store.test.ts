import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INDEX_FILE, loadSavedIndex, saveIndex } from '../../src/search/index-store.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'mcpkit-index-store-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const chunk = {
  path: 'a.ts',
  startLine: 1,
  endLine: 1,
  language: 'typescript',
  symbols: ['a'],
  content: 'a',
};
const stamps = new Map([['a.ts', { size: 1, mtimeMs: 5 }]]);

describe('saveIndex', () => {
  it('saves the index with a .gitignore of `*` beside it, so it is never committed', async () => {
    expect(await saveIndex(root, stamps, [chunk])).toBe(join(root, INDEX_FILE));
    expect(await readFile(join(root, '.mcpkit/.gitignore'), 'utf8')).toBe('*\n');
    const saved = await loadSavedIndex(root);
    expect(typeof saved === 'object' && saved.files.get('a.ts')).toEqual({
      stamp: stamps.get('a.ts'),
      chunks: [chunk],
    });
  });

  it('leaves a .gitignore the user wrote in .mcpkit/ as it is', async () => {
    await mkdir(join(root, '.mcpkit'));
    await writeFile(join(root, '.mcpkit/.gitignore'), 'search-index.json\n!settings.json\n');
    await saveIndex(root, stamps, [chunk]);
    await saveIndex(root, stamps, [chunk]);
    expect(await readFile(join(root, '.mcpkit/.gitignore'), 'utf8')).toBe(
      'search-index.json\n!settings.json\n',
    );
  });
});
