// What the database-schema tests share: the sample app, the labelled queries, an in-process search server.
import { fileURLToPath } from 'node:url';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { expect } from 'vitest';
import { CodeIndex } from '../../src/search/code-index/code-index.js';
import type { DbTarget } from '../../src/search/db-schemas/db-target.js';
import { withDatabases } from '../../src/search/db-schemas/index-databases.js';
import {
  createSearchServer,
  type SearchServer,
  type SearchServerOptions,
} from '../../src/search/server/search-server.js';

/** The sample app whose code queries the shop schema (SQL strings, an ORM model named after its table). */
export const APP = fileURLToPath(new URL('../fixtures/db/app', import.meta.url));

/**
 * Queries and the object each must find at rank 1-3, written before any result was seen: natural language
 * and identifiers. `engines` limits a query to the engines that have the object (SQLite has no functions).
 */
export const SCHEMA_QUERIES: { query: string; object: string; engines?: string[] }[] = [
  { query: 'customer email', object: 'customers' },
  { query: 'when was the order placed', object: 'orders' },
  { query: 'creation time of product reviews', object: 'product_reviews' },
  { query: 'stock on hand per warehouse', object: 'inventory_levels' },
  { query: 'discount codes', object: 'coupons' },
  { query: 'tracking number of a parcel', object: 'shipments' },
  { query: 'money given back to customers', object: 'refunds' },
  { query: 'password reset token', object: 'password_resets' },
  { query: 'cust_email', object: 'customers' },
  { query: 'qty_reserved', object: 'inventory_levels' },
  { query: 'provider_txn_id', object: 'payments' },
  { query: 'order_total', object: 'order_total', engines: ['postgres', 'mysql'] },
];

/** An in-process search server with an SDK client over linked in-memory transports, and its log. */
export async function connectSearch(options: SearchServerOptions): Promise<{
  client: Client;
  server: SearchServer;
  log: () => string;
  call: (name: string, args?: Record<string, unknown>) => Promise<{ text: string; isError: boolean }>;
  close: () => Promise<void>;
}> {
  const lines: string[] = [];
  const server = createSearchServer({ env: {}, log: (m) => lines.push(m), ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await (await server.factory({} as Parameters<McpServerFactory>[0])).connect(serverSide);
  const client = new Client({ name: 'db-schema-test', version: '1' });
  await client.connect(clientSide);
  return {
    client,
    server,
    log: () => lines.join('\n'),
    call: async (name, args = {}) => {
      const result = (await client.callTool({ name, arguments: args })) as {
        content: { type: string; text?: string }[];
        isError?: boolean;
      };
      return { text: result.content.map((c) => c.text ?? '').join('\n'), isError: result.isError === true };
    },
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** The result paths of a search tool's text, in order. */
export const resultPaths = (text: string) =>
  [...text.matchAll(/^\d+\. (\S+):\d+-\d+ \(score=/gm)].map((m) => m[1] as string);

/** The sample app's index with one database's schema added; a database that cannot be read fails the test. */
export async function appWithSchema(
  target: DbTarget,
  vectors: 'corpus' | 'none' = 'corpus',
): Promise<CodeIndex> {
  return withDatabases(await CodeIndex.build(APP, { saved: false, vectors }), [target], (m) => {
    throw new Error(m);
  });
}

/**
 * Checks that each labelled query of `engine` finds its object (`db/shop/<schema>.<object>`) at rank 1-3 in the
 * default hybrid mode, and prints every rank (the figures docs/search.md reports).
 */
export async function expectSchemaRanks(target: DbTarget, engine: string, schema: string): Promise<void> {
  const index = await appWithSchema(target);
  const ranks: string[] = [];
  for (const { query, object, engines } of SCHEMA_QUERIES) {
    if (engines && !engines.includes(engine)) continue;
    const paths = index.search(query, 10, 'hybrid').map((h) => h.chunk.path);
    const rank = paths.indexOf(`db/shop/${schema}.${object}`) + 1;
    ranks.push(`${query} → ${object}: ${rank || 'not found'}`);
    expect(rank, `${query}: ${paths.join(', ')}`).toBeGreaterThan(0);
    expect(rank, `${query}: ${paths.join(', ')}`).toBeLessThanOrEqual(3);
  }
  console.log(`${engine} ranks:\n${ranks.join('\n')}`);
}
