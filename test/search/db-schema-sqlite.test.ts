import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDbTarget } from '../../src/search/db-schemas/db-target.js';
import { runInProcessAt } from '../config/run-in-process.js';
import { writeSqliteShop } from '../fixtures/db/load-shop.js';
import { CLI } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { APP, appWithSchema, connectSearch, expectSchemaRanks, resultPaths } from './db-fixture.js';

let dir: string;
let file: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-db-sqlite-'));
  file = join(dir, 'shop.sqlite');
  await writeSqliteShop(file);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('SQLite schemas in code search', () => {
  it('writes a table as DDL with keys both ways, checks, indexes, comments and the long words of short names', async () => {
    const index = await appWithSchema(parseDbTarget(file, {}, dir), 'none');
    const orders = index.chunks.find((c) => c.path === 'db/shop/main.orders');
    expect(orders?.language).toBe('sql');
    expect(orders?.content).toContain("-- A customer's purchase: placed, paid, shipped");
    expect(orders?.content).toContain('customer_id INTEGER NOT NULL REFERENCES main.customers(id)');
    expect(orders?.content).toContain(
      'total_amt NUMERIC NOT NULL DEFAULT 0, -- sum of the items after discounts, with tax',
    );
    expect(orders?.content).toContain('CONSTRAINT orders_check_1 CHECK (total_amt >= 0)');
    expect(orders?.content).toContain(
      'CREATE INDEX idx_orders_customer_id_placed_at ON main.orders (customer_id, placed_at);',
    );
    expect(orders?.content).toMatch(/-- referenced by: .*main\.order_items\(order_id\)/);
    const customers = index.chunks.find((c) => c.path === 'db/shop/main.customers');
    expect(customers?.content).toMatch(/-- words: .*customer.*creation.*time/);
    const composite = index.chunks.find((c) => c.path === 'db/shop/main.inventory_levels');
    expect(composite?.content).toContain('PRIMARY KEY (variant_id, warehouse_id)');
    const view = index.chunks.find((c) => c.path === 'db/shop/main.low_stock_variants');
    expect(view?.content).toMatch(/^CREATE VIEW main\.low_stock_variants AS/m);
    expect(index.chunks.filter((c) => c.path.startsWith('db/shop/')).length).toBe(38);
  });

  it('finds each labelled table at rank 1-3 among code and schema, in one list', async () => {
    await expectSchemaRanks(parseDbTarget(file, {}, dir), 'sqlite', 'main');
  });

  it('find_related goes from a table to the code that uses it, and back', async () => {
    const served = await connectSearch({ root: APP, databases: [parseDbTarget(file, {}, dir)] });
    try {
      await served.server.ready();
      await served.server.databases?.loaded;
      const fromTable = await served.call('find_related', {
        file_path: 'db/shop/main.coupon_redemptions',
        line: 1,
      });
      expect(resultPaths(fromTable.text)).toContain('shop/marketing/coupons.py');
      const fromCode = await served.call('find_related', { file_path: 'shop/support/tickets.py', line: 6 });
      expect(resultPaths(fromCode.text).slice(0, 3)).toContain('db/shop/main.support_tickets');
      const model = await served.call('find_related', { file_path: 'shop/models/customer.py', line: 12 });
      expect(resultPaths(model.text).slice(0, 3)).toContain('db/shop/main.customers');
    } finally {
      await served.close();
    }
  });

  it('mcpkit query --db searches code and schema; a missing or foreign file is one line and code is still searched', async () => {
    const ok = await runInProcessAt(['query', APP, 'discount codes', '--db', file, '--top-k', '3'], dir, {});
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^1\. db\/shop\/main\.coupons:1-\d+ /m);
    await writeFile(join(dir, 'not-a-db.sqlite'), 'hello');
    for (const [spec, line] of [
      [
        join(dir, 'missing.sqlite'),
        `mcpkit query: missing: cannot read SQLite database ${join(dir, 'missing.sqlite')}: no such file; check the path in --db; searching code without it\n`,
      ],
      [
        join(dir, 'not-a-db.sqlite'),
        `mcpkit query: not-a-db: ${join(dir, 'not-a-db.sqlite')} is not a SQLite database (no "SQLite format 3" header); check the path in --db; searching code without it\n`,
      ],
    ] as const) {
      const result = await runInProcessAt(['query', APP, 'cancel order', '--db', spec], dir, {});
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(line);
      expect(result.stdout).toContain('shop/orders/repository.py');
    }
  });

  it('mcpkit gateway --db serves the schema through its built-in search, the database passed by environment', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'gateway', '--db', `shop=${file}`],
      cwd: APP,
      env: { PATH: process.env.PATH ?? '', HOME: dir },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'db-gateway-test', version: '1' });
    await client.connect(transport);
    try {
      // The search upstream joins the listing once it is up.
      await eventually(async () =>
        (await client.listTools()).tools.some((t) => t.name === 'search__reindex_db') ? true : undefined,
      );
      const found = await eventually(async () => {
        const result = (await client.callTool({
          name: 'search__search',
          arguments: { query: 'discount codes', top_k: 3 },
        })) as { content: { text: string }[] };
        const text = result.content.map((c) => c.text).join('\n');
        return text.includes('db/shop/main.coupons') ? text : undefined;
      });
      expect(found).toContain('db/shop/main.coupons');
    } finally {
      await client.close();
    }
  });

  it('mcpkit search-server --db over stdio lists reindex_db and logs what it read; mcpkit index --db reports it', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'search-server', APP, '--db', `shop=${file}`, '--db-refresh', '3600'],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (data: Buffer) => {
      stderr += data.toString();
    });
    const client = new Client({ name: 'db-schema-test', version: '1' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
        'search',
        'find_related',
        'reindex_db',
      ]);
      // The first read runs from the start (a reindex_db meanwhile is told it is in progress).
      await eventually(() => (stderr.includes('mcpkit search: database shop') ? true : undefined));
      const result = (await client.callTool({ name: 'reindex_db', arguments: {} })) as {
        content: { text: string }[];
      };
      expect(result.content[0]?.text).toMatch(
        new RegExp(
          `^Re-read the database schema in \\d+ ms:\nshop \\(${file.replaceAll('.', '\\.')}\\): 36 tables, 2 views, 0 routines, 0 enums in \\d+ ms; no change$`,
        ),
      );
      expect(stderr).toMatch(
        /mcpkit search: database shop \(.*\): 36 tables, 2 views, 0 routines, 0 enums in \d+ ms; 38 objects indexed/,
      );
    } finally {
      await client.close();
    }
    const copy = join(dir, 'app');
    await cp(APP, copy, { recursive: true });
    const indexed = await runInProcessAt(['index', copy, '--db', file], dir, {});
    expect(indexed.code).toBe(0);
    expect(indexed.stdout).toMatch(
      /^read shop \(.*shop\.sqlite\): 38 tables and views, 0 routines, 0 enums in \d+ ms$/m,
    );
  });
});
