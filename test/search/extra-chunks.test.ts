import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../../src/search/chunks/chunker.js';
import { CodeIndex } from '../../src/search/code-index/code-index.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'mcpkit-extra-'));
  await writeFile(
    join(root, 'orders.py'),
    'def cancel_order(db, order_id):\n    db.execute("UPDATE orders")\n',
  );
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const schema = (column: string): Chunk[] => [
  {
    path: 'db/shop/public.orders',
    startLine: 1,
    endLine: 3,
    language: 'sql',
    symbols: ['orders', column],
    content: `CREATE TABLE public.orders (\n  ${column} text\n);`,
  },
];

describe('documents from another source (the seam database schemas use)', () => {
  it('replaces a named set in one step, keeps it through file changes, finds chunks by its paths, never saves it', async () => {
    const index = await CodeIndex.build(root, { vectors: 'none', saved: false });
    expect(index.search('gift message', 5).length).toBe(0);
    index.addDocuments('shop', schema('gift_message'));
    expect(index.search('gift message', 5)[0]?.chunk.path).toBe('db/shop/public.orders');
    index.addDocuments('shop', schema('coupon_code'));
    expect(index.search('gift message', 5).length).toBe(0);
    expect(index.search('coupon code', 5)[0]?.chunk.path).toBe('db/shop/public.orders');
    // A file change updates the index in place: the set stays.
    await writeFile(join(root, 'orders.py'), 'def ship_order(db, order_id):\n    pass\n');
    await index.withFiles(['orders.py']);
    expect(index.search('coupon code', 5)[0]?.chunk.path).toBe('db/shop/public.orders');
    expect(index.search('ship order', 5)[0]?.chunk.path).toBe('orders.py');
    // find_related starts from a table like from a file.
    expect(index.hasFile('db/shop/public.orders')).toBe(true);
    expect(index.chunkAt('db/shop/public.orders', 2)?.content).toContain('coupon_code text');
    const saved = await readFile(await index.save());
    expect(saved.includes(Buffer.from('db/shop/public.orders'))).toBe(false);
    expect(saved.includes(Buffer.from('orders.py'))).toBe(true);
    index.addDocuments('shop', []);
    expect(index.hasFile('db/shop/public.orders')).toBe(false);
  });
});
