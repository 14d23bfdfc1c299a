import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../../src/search/chunker.js';
import { CodeIndex } from '../../src/search/code-index.js';

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

describe('extra chunk sets (the seam database schemas use)', () => {
  it('swaps a named set in a new index, keeps it through file changes, and never saves it', async () => {
    const index = await CodeIndex.build(root, { vectors: 'none', saved: false });
    const withSchema = index.withExtraChunks('shop', schema('gift_message'));
    expect(index.search('gift message', 5).length).toBe(0);
    expect(withSchema.search('gift message', 5)[0]?.chunk.path).toBe('db/shop/public.orders');
    const replaced = withSchema.withExtraChunks('shop', schema('coupon_code'));
    expect(replaced.search('gift message', 5).length).toBe(0);
    expect(replaced.search('coupon code', 5)[0]?.chunk.path).toBe('db/shop/public.orders');
    // A file change derives a new index from an older one: it carries the newest set, not that index's.
    await writeFile(join(root, 'orders.py'), 'def ship_order(db, order_id):\n    pass\n');
    const changed = await withSchema.withFiles(['orders.py']);
    expect(changed.search('coupon code', 5)[0]?.chunk.path).toBe('db/shop/public.orders');
    expect(changed.search('ship order', 5)[0]?.chunk.path).toBe('orders.py');
    expect(changed.hasFile('db/shop/public.orders')).toBe(true);
    const saved = JSON.parse(await readFile(await changed.save(), 'utf8')) as { chunks: Chunk[] };
    expect(saved.chunks.map((c) => c.path)).toEqual(['orders.py']);
    expect(changed.withExtraChunks('shop', []).hasFile('db/shop/public.orders')).toBe(false);
  });
});
