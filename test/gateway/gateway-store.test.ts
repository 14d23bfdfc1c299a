// `mcpkit gateway --store`: the gateway's built-in code search answers from the shared index in PostgreSQL (what
// gateway replicas share), on a real PostgreSQL: the same answer as a search server on that store, and the store's
// URL reaches the search server through its environment, never its command line.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkspace, runCli, type Workspace } from '../helpers/cli.js';
import type { DbServer } from '../helpers/databases.js';
import { missingEngines } from '../helpers/engines.js';
import { test } from '../helpers/fixtures.js';
import { connectGateway, type GatewayClient, textOf } from '../helpers/gateway.js';
import { childrenOf, commandLine } from '../helpers/process-table.js';

describe.skipIf(missingEngines('postgres'))('gateway --store (the shared code index)', () => {
  let db: DbServer;
  let ws: Workspace;
  let url: string;
  let gw: GatewayClient | undefined;

  test.beforeAll(async ({ postgres }) => {
    db = postgres;
    ws = await createWorkspace();
    // The application user (with a password) owns the index: PostgreSQL 15+ gives nobody CREATE on public.
    const admin = new pg.Client({ connectionString: db.adminUrl('postgres') });
    await admin.connect();
    await admin.query('GRANT CREATE ON SCHEMA public TO app');
    await admin.end();
    url = db.appUrl('postgres');
    await writeFile(
      join(ws.project, 'billing.ts'),
      'export function chargeCard(amount: number) {\n  return amount;\n}\n',
    );
    await writeFile(
      join(ws.project, 'cache.ts'),
      'export class TtlCache {\n  get(key: string) {\n    return key;\n  }\n}\n',
    );
    const indexed = await runCli(ws, ['index', ws.project, '--store', url]);
    expect(indexed.stderr).toBe('');
    expect(indexed.code).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await gw?.close();
    await ws?.cleanup();
  });

  it('answers search__search from the store, with the password on no command line', async () => {
    // A file added after indexing: the store does not have it, so finding it would mean a local index answered.
    await writeFile(join(ws.project, 'late.ts'), 'export function chargeLater() {}\n');
    gw = await connectGateway(ws, ['--store', url]);
    const client = gw;
    const tools = (await client.client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(['search__search', 'search__find_related']);
    const found = await client.client.callTool({
      name: 'search__search',
      arguments: { query: 'chargeCard', top_k: 3 },
    });
    expect(textOf(found)).toContain('billing.ts:1-3');
    const late = await client.client.callTool({
      name: 'search__search',
      arguments: { query: 'chargeLater', top_k: 3 },
    });
    expect(textOf(late)).not.toContain('late.ts');
    const pid = client.transport.pid as number;
    const search = childrenOf(pid).find((row) => commandLine(row.pid).includes('search-server'));
    expect(search).toBeDefined();
    expect(commandLine(search?.pid as number)).not.toContain(db.password);
    expect(client.stderr()).not.toContain(db.password);
  });

  it('refuses a store URL that is not PostgreSQL in one line, password masked', async () => {
    const bad = await runCli(
      ws,
      ['gateway', '--store', 'http://user:hunter2@example.com/db'],
      {},
      {
        stdin: { open: true },
      },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).not.toContain('hunter2');
  });
});
