import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodeIndex } from '../../src/search/code-index/code-index.js';
import { BUILTIN_MODEL, StaticModel } from '../../src/search/vectors/static-model.js';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);

describe('the shipped static model (models/code-words)', () => {
  let model: StaticModel;
  let dir: string;
  beforeAll(async () => {
    model = await StaticModel.load(BUILTIN_MODEL);
    dir = await mkdtemp(join(tmpdir(), 'mcpkit-builtin-model-'));
    // Code without a comment: the query's English words are in none of these files.
    const files: Record<string, string> = {
      'store.ts':
        'export function drop(table: Map<string, number>, key: string): void {\n  table.delete(key);\n}\n',
      'pack.ts':
        'export function pack(bytes: Uint8Array): Uint8Array {\n  return gzipSync(deflateRaw(bytes));\n}\n',
      'digest.ts':
        'export function digest(data: string): string {\n  return createHash("sha256").update(data).digest("hex");\n}\n',
      'wait.ts':
        'export function nap(ms: number): Promise<void> {\n  return new Promise((resolve) => setTimeout(resolve, ms));\n}\n',
      'dial.ts':
        'export function dial(host: string, port: number) {\n  return socket.connect({ host, port, timeout: 5000 });\n}\n',
    };
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('loads from the package offline and puts English words near the code words under them', () => {
    expect(model.dimensions).toBe(128);
    const remove = model.encode('remove an entry');
    expect(cosine(remove, model.encode('delete'))).toBeGreaterThan(cosine(remove, model.encode('compress')));
    const decompress = model.encode('decompress data');
    expect(cosine(decompress, model.encode('gzip'))).toBeGreaterThan(
      cosine(decompress, model.encode('socket')),
    );
  });

  it('finds uncommented code for a plain-English query that bm25 alone misses', async () => {
    const index = await CodeIndex.build(dir, { saved: false, model });
    expect(index.search('remove an entry', 3, 'bm25').map((h) => h.chunk.path)).not.toContain('store.ts');
    expect(index.search('remove an entry', 3, 'hybrid')[0]?.chunk.path).toBe('store.ts');
    expect(index.search('compress bytes', 3, 'semantic')[0]?.chunk.path).toBe('pack.ts');
  });

  it('ties English to code it was not written beside, after its contrastive fit', async () => {
    // The LSA-only model ranked neither first; bm25 finds neither, no query word being in the code.
    const index = await CodeIndex.build(dir, { saved: false, model });
    for (const [query, file] of [
      ['checksum of a buffer', 'digest.ts'],
      ['pause for a while before continuing', 'wait.ts'],
    ] as const) {
      expect(index.search(query, 3, 'bm25').map((h) => h.chunk.path)).not.toContain(file);
      expect(index.search(query, 3, 'hybrid')[0]?.chunk.path).toBe(file);
    }
  });

  it('still ranks by the model when a saved index is taken at the next start', async () => {
    const indexFile = join(dir, 'saved-index.bin');
    await (await CodeIndex.build(dir, { saved: false, model })).save(indexFile);
    const again = await CodeIndex.build(dir, { indexFile, model });
    expect(again.loadedFrom).toBe(indexFile);
    expect(again.hasVectors).toBe(true);
    expect(again.search('checksum of a buffer', 3, 'semantic')[0]?.chunk.path).toBe('digest.ts');
  });
});
