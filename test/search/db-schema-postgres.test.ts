import { describe, expect, it } from 'vitest';
import { REFRESH_BUSY } from '../../src/search/db-schemas/db-schemas.js';
import { parseDbTarget } from '../../src/search/db-schemas/db-target.js';
import { connectPostgres } from '../../src/search/db-schemas/postgres-schema.js';
import { runInProcessAt } from '../config/run-in-process.js';
import { loadPostgresShop } from '../fixtures/db/load-shop.js';
import type { DbServer } from '../helpers/databases.js';
import { missingEngines } from '../helpers/engines.js';
import { eventually } from '../helpers/eventually.js';
import { test } from '../helpers/fixtures.js';
import { APP, appWithSchema, connectSearch, expectSchemaRanks, resultPaths } from './db-fixture.js';

// CI installs PostgreSQL (.ci/run): there a missing server is a failure, not a skip.
describe.skipIf(missingEngines('postgres'))('PostgreSQL schemas in code search', () => {
  let pg: DbServer;
  const target = () => parseDbTarget(pg.appUrl('shop'), {}, APP);
  const admin = async (sql: string) => {
    const { default: driver } = await import('pg');
    const client = new driver.Client({ connectionString: pg.adminUrl('shop') });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };

  test.beforeAll(async ({ postgres }) => {
    pg = postgres;
    await loadPostgresShop(pg.adminUrl);
  }, 60_000);

  it('reads tables, views, functions, procedures and enums as read-only chunks', async () => {
    const index = await appWithSchema(target(), 'none');
    const db = index.chunks.filter((c) => c.path.startsWith('db/shop/'));
    // 36 tables, 2 views, 2 enums, 2 functions and a procedure.
    expect(db.length).toBe(43);
    const orders = db.find((c) => c.path === 'db/shop/public.orders')?.content ?? '';
    expect(orders).toContain("-- A customer's purchase: placed, paid, shipped");
    expect(orders).toContain("order_status order_status_t NOT NULL DEFAULT 'pending'::order_status_t,");
    expect(orders).toContain('customer_id bigint NOT NULL REFERENCES public.customers(id),');
    expect(orders).toContain(
      'shipping_address_id bigint REFERENCES public.customer_addresses(id) ON DELETE SET NULL,',
    );
    expect(orders).toContain('CONSTRAINT orders_check_1 CHECK (total_amt >= 0::numeric)');
    expect(orders).toContain('-- sum of the items after discounts, with tax');
    expect(orders).toMatch(/-- referenced by: .*public\.order_items\(order_id\)/);
    expect(db.find((c) => c.path === 'db/shop/public.order_status_t')?.content).toContain(
      "CREATE TYPE public.order_status_t AS ENUM ('pending', 'paid', 'shipped', 'delivered', 'cancelled');",
    );
    expect(db.find((c) => c.path === 'db/shop/public.restock_variant')?.content).toMatch(
      /^CREATE PROCEDURE public\.restock_variant\(IN p_variant_id bigint, IN p_warehouse_id bigint, IN p_qty integer\) LANGUAGE plpgsql AS \$\$$/m,
    );
    expect(db.find((c) => c.path === 'db/shop/public.customer_lifetime_value')?.content).toContain(
      '-- Revenue and number of orders per customer',
    );
  });

  it('finds each labelled object at rank 1-3 among code and schema', async () => {
    await expectSchemaRanks(target(), 'postgres', 'public');
  });

  it('a refused connection, a wrong password and a bad URL are one line each; code is still searched; no password shown', async () => {
    const closed = await eventually(async () => {
      const { createServer } = await import('node:net');
      const server = createServer();
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      const { port } = server.address() as { port: number };
      await new Promise((done) => server.close(done));
      return port;
    });
    const cases: [string, string][] = [
      [
        `postgres://app:\${PW}@127.0.0.1:${closed}/shop`,
        `mcpkit query: shop: cannot connect to PostgreSQL at 127.0.0.1:${closed}: connection refused; is the server running and listening there?; searching code without it\n`,
      ],
      [
        `postgres://app:wrong-${pg.password}@127.0.0.1:${pg.port}/shop`,
        `mcpkit query: shop: cannot log in to PostgreSQL at 127.0.0.1:${pg.port}: password authentication failed for user "app"; check the user and password in --db (write the password as \${VAR}); searching code without it\n`,
      ],
      [
        `postgres://app:\${PW}@[bad/shop`,
        'mcpkit query: --db postgres://app:${PW}@[bad/shop is not a valid URL; write it as postgres://user:${PASSWORD}@host:port/database; searching code without it\n',
      ],
    ];
    for (const [url, line] of cases) {
      const result = await runInProcessAt(['query', APP, 'cancel order', '--db', url], APP, {
        PW: pg.password,
      });
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(line);
      expect(result.stdout).toContain('shop/orders/repository.py');
      expect(`${result.stdout}${result.stderr}`).not.toContain(pg.password);
    }
  });

  it('find_related from a table reaches the code that queries it, and back, over the search server', async () => {
    const served = await connectSearch({ root: APP, databases: [target()] });
    try {
      await served.server.ready();
      await served.server.databases?.loaded;
      const fromTable = await served.call('find_related', { file_path: 'db/shop/public.orders', line: 1 });
      expect(resultPaths(fromTable.text)).toContain('shop/orders/repository.py');
      const fromCode = await served.call('find_related', { file_path: 'shop/orders/repository.py', line: 6 });
      expect(resultPaths(fromCode.text).slice(0, 3)).toContain('db/shop/public.orders');
      expect(served.log()).toMatch(
        /database shop \(postgres:\/\/app@127\.0\.0\.1:\d+\/shop\): 36 tables, 2 views, 3 routines, 2 enums in \d+ ms; 43 objects indexed/,
      );
      expect(served.log()).not.toContain(pg.password);
    } finally {
      await served.close();
    }
  });

  it('reindex_db finds an added column, says what changed, and answers at once when a refresh is running', async () => {
    const served = await connectSearch({ root: APP, databases: [target()] });
    try {
      await served.server.ready();
      await served.server.databases?.loaded;
      expect(
        resultPaths((await served.call('search', { query: 'loyalty points balance' })).text),
      ).not.toContain('db/shop/public.customers');
      await admin('ALTER TABLE customers ADD COLUMN loyalty_points integer NOT NULL DEFAULT 0');
      const [first, second] = await Promise.all([served.call('reindex_db'), served.call('reindex_db')]);
      expect(second).toEqual({ text: REFRESH_BUSY, isError: false });
      expect(first.isError).toBe(false);
      expect(first.text).toMatch(
        /^Re-read the database schema in \d+ ms:\nshop \(postgres:\/\/app@127\.0\.0\.1:\d+\/shop\): 36 tables, 2 views, 3 routines, 2 enums in \d+ ms; changed public\.customers$/,
      );
      const paths = resultPaths((await served.call('search', { query: 'loyalty points balance' })).text);
      expect(paths[0]).toBe('db/shop/public.customers');
      const again = await served.call('reindex_db');
      expect(again.text).toMatch(/; no change$/);
    } finally {
      await served.close();
    }
  });

  it('a search racing refreshes sees the old schema or the new, never half', async () => {
    const served = await connectSearch({ root: APP, databases: [target()], vectors: 'none' });
    try {
      await served.server.ready();
      await served.server.databases?.loaded;
      await admin(
        'BEGIN; ALTER TABLE refunds ADD COLUMN audit_marker text; ALTER TABLE carriers ADD COLUMN audit_marker text; COMMIT',
      );
      const refreshed = served.call('reindex_db');
      const seen = new Set<number>();
      let done = false;
      void refreshed.then(() => {
        done = true;
      });
      while (!done) {
        const paths = resultPaths((await served.call('search', { query: 'audit_marker', top_k: 10 })).text);
        seen.add(
          paths.filter((p) => p === 'db/shop/public.refunds' || p === 'db/shop/public.carriers').length,
        );
        // In-memory calls settle in microtasks: let the refresh's socket reads in between.
        await new Promise((next) => setImmediate(next));
      }
      const after = resultPaths((await served.call('search', { query: 'audit_marker', top_k: 10 })).text);
      seen.add(after.filter((p) => p === 'db/shop/public.refunds' || p === 'db/shop/public.carriers').length);
      expect((await refreshed).text).toMatch(/changed public\.carriers, public\.refunds$/);
      expect([...seen].sort()).toEqual(seen.size === 1 ? [2] : [0, 2]);
    } finally {
      await served.close();
    }
  });

  it('--db-watch: an added column is found without reindex_db (DDL event trigger + LISTEN)', async () => {
    const served = await connectSearch({
      root: APP,
      databases: [parseDbTarget(pg.adminUrl('shop'), {}, APP)],
      dbWatch: true,
    });
    try {
      await served.server.ready();
      await served.server.databases?.loaded;
      await eventually(() => (/watching shop .* for schema changes/.test(served.log()) ? true : undefined));
      await admin('ALTER TABLE shipments ADD COLUMN signature_required boolean NOT NULL DEFAULT false');
      await eventually(async () => {
        const paths = resultPaths((await served.call('search', { query: 'signature required' })).text);
        return paths[0] === 'db/shop/public.shipments' ? true : undefined;
      });
      await eventually(() =>
        /schema refresh: shop .*; changed public\.shipments$/m.test(served.log()) ? true : undefined,
      );
      // The LISTEN connection dropped (a server restart, an admin's kill): one line says so.
      await admin(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'mcpkit-search-watch'",
      );
      await eventually(() =>
        /shop: stopped watching for schema changes: .*; reindex_db or --db-refresh still refresh/.test(
          served.log(),
        )
          ? true
          : undefined,
      );
    } finally {
      await served.close();
    }
  });

  it('is read-only by construction: even a superuser session that introspects cannot write', async () => {
    const client = await connectPostgres(parseDbTarget(pg.adminUrl('shop'), {}, APP));
    try {
      await expect(client.query('CREATE TABLE intruder (id int)')).rejects.toThrow(
        'cannot execute CREATE TABLE in a read-only transaction',
      );
      expect((await client.query('SHOW statement_timeout')).rows[0]).toEqual({ statement_timeout: '15s' });
    } finally {
      await client.end();
    }
  });

  it('--db-refresh re-reads on a timer: an added column is found without reindex_db', async () => {
    const served = await connectSearch({ root: APP, databases: [target()], dbRefreshSeconds: 1 });
    try {
      await served.server.ready();
      await served.server.databases?.loaded;
      await admin('ALTER TABLE warehouses ADD COLUMN dock_door_count integer');
      await eventually(async () => {
        const paths = resultPaths((await served.call('search', { query: 'dock door count' })).text);
        return paths[0] === 'db/shop/public.warehouses' ? true : undefined;
      });
    } finally {
      await served.close();
    }
  });

  it('a search server whose database refuses logs one line, serves code, and reindex_db says what failed', async () => {
    const wrong = parseDbTarget(`postgres://app:\${PW}@127.0.0.1:${pg.port}/shop`, { PW: 'not-it' }, APP);
    const served = await connectSearch({ root: APP, databases: [wrong] });
    try {
      await served.server.ready();
      await served.server.databases?.loaded;
      const line = `shop: cannot log in to PostgreSQL at 127.0.0.1:${pg.port}: password authentication failed for user "app"; check the user and password in --db (write the password as \${VAR})`;
      await eventually(() => (served.log().includes(`database ${line}`) ? true : undefined));
      expect(resultPaths((await served.call('search', { query: 'cancel order' })).text)[0]).toBe(
        'shop/orders/repository.py',
      );
      const result = await served.call('reindex_db');
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^Re-read the database schema in \d+ ms:\n/);
      expect(result.text.split('\n')[1]).toBe(line);
      expect(served.log()).not.toContain('not-it');
    } finally {
      await served.close();
    }
  });
});
