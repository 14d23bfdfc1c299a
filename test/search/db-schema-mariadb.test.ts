import { describe, expect, it } from 'vitest';
import { parseDbTarget } from '../../src/search/db-schemas/db-target.js';
import { connectMysql } from '../../src/search/db-schemas/mysql-schema.js';
import { runInProcessAt } from '../config/run-in-process.js';
import { loadMariadbShop } from '../fixtures/db/load-shop.js';
import type { DbServer } from '../helpers/databases.js';
import { missingEngines } from '../helpers/engines.js';
import { test } from '../helpers/fixtures.js';
import { APP, appWithSchema, connectSearch, expectSchemaRanks, resultPaths } from './db-fixture.js';

// CI installs MariaDB (.ci/run): there a missing server is a failure, not a skip.
describe.skipIf(missingEngines('mariadb'))('MariaDB schemas in code search', () => {
  let db: DbServer;
  const target = () => parseDbTarget(db.appUrl('shop'), {}, APP);

  test.beforeAll(async ({ mariadb }) => {
    db = mariadb;
    await loadMariadbShop(db.adminUrl);
  }, 90_000);

  it('reads tables, views, functions and procedures with comments, keys both ways, indexes and checks', async () => {
    const index = await appWithSchema(target(), 'none');
    const chunks = index.chunks.filter((c) => c.path.startsWith('db/shop/'));
    // 36 tables, 2 views, a function and a procedure.
    expect(chunks.length).toBe(40);
    const orders = chunks.find((c) => c.path === 'db/shop/shop.orders')?.content ?? '';
    expect(orders).toContain("-- A customer's purchase: placed, paid, shipped");
    expect(orders).toContain(
      "order_status enum('pending','paid','shipped','delivered','cancelled') NOT NULL DEFAULT 'pending',",
    );
    expect(orders).toContain('customer_id bigint(20) NOT NULL REFERENCES shop.customers(id),');
    expect(orders).toContain('-- sum of the items after discounts, with tax');
    expect(orders).toMatch(/CONSTRAINT orders_check_1 CHECK \(`total_amt` >= 0\)/);
    expect(orders).not.toContain('fk_orders_shipping_address_id');
    expect(orders).toMatch(/-- referenced by: .*shop\.order_items\(order_id\)/);
    expect(chunks.find((c) => c.path === 'db/shop/shop.restock_variant')?.content).toMatch(
      /^CREATE PROCEDURE shop\.restock_variant\(IN p_variant_id bigint\(20\), IN p_warehouse_id bigint\(20\), IN p_qty int\(11\)\) AS \$\$$/m,
    );
  });

  it('finds each labelled object at rank 1-3 among code and schema', async () => {
    await expectSchemaRanks(target(), 'mysql', 'shop');
  });

  it('find_related from a table reaches the code that queries it', async () => {
    const served = await connectSearch({ root: APP, databases: [target()] });
    try {
      await served.server.ready();
      await served.server.databases?.loaded;
      const fromTable = await served.call('find_related', {
        file_path: 'db/shop/shop.support_tickets',
        line: 1,
      });
      expect(resultPaths(fromTable.text)).toContain('shop/support/tickets.py');
    } finally {
      await served.close();
    }
  });

  it('a wrong password is one line naming host:port; code is still searched; the password never shows', async () => {
    const result = await runInProcessAt(
      ['query', APP, 'cancel order', '--db', `mysql://app:\${PW}@127.0.0.1:${db.port}/shop`],
      APP,
      { PW: `not-${db.password}` },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      `mcpkit query: shop: cannot log in to MySQL/MariaDB at 127.0.0.1:${db.port}: Access denied for user 'app'@'127.0.0.1' (using password: YES); check the user and password in --db (write the password as \${VAR}); searching code without it\n`,
    );
    expect(result.stdout).toContain('shop/orders/repository.py');
    expect(`${result.stdout}${result.stderr}`).not.toContain(db.password);
  });

  it('is read-only by construction: even a root session that introspects cannot write', async () => {
    const connection = await connectMysql(parseDbTarget(db.adminUrl('shop'), {}, APP));
    try {
      await connection.query('START TRANSACTION');
      await expect(connection.query("INSERT INTO brands (name) VALUES ('x')")).rejects.toThrow(
        'Cannot execute statement in a READ ONLY transaction',
      );
    } finally {
      await connection.end();
    }
  });

  it('a column check is read for its own table, though MariaDB names it after the column in every table', async () => {
    const mysql = await import('mysql2/promise');
    const admin = await mysql.createConnection(db.adminUrl(''));
    try {
      await admin.query('CREATE DATABASE twins');
      for (const table of ['tickets', 'tasks'])
        await admin.query(
          `CREATE TABLE twins.${table} (id int PRIMARY KEY, state varchar(10) CHECK (state IN ('open', 'done')))`,
        );
    } finally {
      await admin.end();
    }
    const index = await appWithSchema(parseDbTarget(db.adminUrl('twins'), {}, APP), 'none');
    for (const table of ['tickets', 'tasks']) {
      const content = index.chunks.find((c) => c.path === `db/twins/twins.${table}`)?.content ?? '';
      expect(content.match(/CHECK \(/g)).toHaveLength(1);
      expect(content).toContain("CONSTRAINT state CHECK (`state` in ('open','done'))");
    }
  });
});
