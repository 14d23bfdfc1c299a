// The shared code index in PostgreSQL (`--store`), on a real PostgreSQL: two search servers on one store answer
// exactly as the in-memory index does, see a re-indexed file, tell repositories apart by `repo`; two indexers at
// once leave one consistent index; a search during a re-index sees a file old or new, never half.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it } from 'vitest';
import { CodeIndex, type SearchMode } from '../../src/search/code-index/code-index.js';
import { createSearchServer, type SearchServerOptions } from '../../src/search/server/search-server.js';
import { indexIntoStore, PgStore, parseStoreUrl } from '../../src/search/stores/pg/index.js';
import { StoreMirror } from '../../src/search/stores/pg/store-mirror.js';
import { CLI } from '../helpers/cli.js';
import type { DbServer } from '../helpers/databases.js';
import { missingEngines } from '../helpers/engines.js';
import { eventually } from '../helpers/eventually.js';
import { test } from '../helpers/fixtures.js';
import { mcpkit, textOf, writeSearchRepos } from './fixtures.js';

/** Queries of every kind: words, symbols, common words, a path word, nothing to find. */
const QUERIES = [
  'rank chunks by bm25 score',
  'CodeIndex',
  'tokenize camelCase identifiers',
  'walk the tree and skip node_modules',
  'clone a git repository',
  'save the index to a file',
  'postgres schema introspection',
  'watch files for changes',
  'the',
  'function return',
  'cosine of vectors',
  'zzzqqq nothing here',
  'platypus',
];

interface Connected {
  call(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
}

async function connect(client: Client, close: () => Promise<void>): Promise<Connected> {
  return {
    call: async (name, args) => {
      const result = await client.callTool({ name, arguments: args });
      return { text: textOf(result), isError: result.isError === true };
    },
    close: async () => {
      await client.close();
      await close();
    },
  };
}

/** A search server in this process, with an SDK client over linked in-memory transports. */
async function inProcess(options: SearchServerOptions): Promise<Connected> {
  const server = createSearchServer({ env: {}, log: () => undefined, ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await (await server.factory({} as Parameters<McpServerFactory>[0])).connect(serverSide);
  const client = new Client({ name: 'store-test', version: '1' });
  await client.connect(clientSide);
  return connect(client, () => server.close());
}

/** `mcpkit search-server --store URL <root>` as its own process, over stdio. */
async function spawned(url: string, root: string): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'search-server', '--store', url, root],
    env: { PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'store-test', version: '1' });
  await client.connect(transport);
  return connect(client, async () => undefined);
}

// CI installs PostgreSQL (.ci/run): there a missing server is a failure, not a skip.
describe.skipIf(missingEngines('postgres'))('the code index in PostgreSQL (--store)', () => {
  let pg: DbServer;
  let base: string;
  let repo: string;
  let other: string;
  let url: string;
  let memory: Connected;
  let withVectors: Connected;
  /** The in-memory index of the first tree, told of each change as a watching server is (withFiles). */
  let inMemory: CodeIndex;
  let replicas: Connected[];

  test.beforeAll(async ({ postgres }) => {
    pg = postgres;
    url = pg.adminUrl('postgres');
    base = await mkdtemp(join(tmpdir(), 'mcpkit-store-'));
    // A real corpus: this project's search code (≈70 files), and a small repository beside it.
    repo = join(base, 'search');
    other = join(base, 'billing');
    await cp(join(import.meta.dirname, '../../src/search'), repo, { recursive: true });
    // Twelve files alike: their chunks tie, and ties rank by chunk id as the in-memory index ranks them by order.
    await mkdir(join(repo, 'alike'));
    for (let i = 1; i <= 12; i++)
      await writeFile(join(repo, 'alike', `copy${i}.ts`), 'export const platypus = () => 1;\n');
    // Small pages: a server's copy is loaded in many (ids past 9 and 99 among them, ordered as numbers).
    StoreMirror.pageSize = 100;
    await writeSearchRepos(join(base, 'unused'), other);
    const indexed = await mcpkit(base, 'index', repo, '--store', url);
    expect(indexed.stderr).toBe('');
    expect(indexed.code).toBe(0);
    expect(indexed.stdout).toMatch(
      new RegExp(
        `^indexed search into 127\\.0\\.0\\.1:${pg.port}: \\d+ files, \\d+ chunks; \\d+ files written, 0 removed in \\d+ ms\\n$`,
      ),
    );
    expect((await mcpkit(base, 'index', other, '--store', url)).code).toBe(0);
    memory = await inProcess({ root: repo, vectors: 'none', saveIndex: false, watch: false, mode: 'bm25' });
    withVectors = await inProcess({ root: repo, saveIndex: false, watch: false });
    inMemory = await CodeIndex.build(repo, { saved: false });
    replicas = [await inProcess({ root: repo, store: await PgStore.connect(url) }), await spawned(url, repo)];
  }, 120_000);

  afterAll(async () => {
    await Promise.all([memory?.close(), withVectors?.close(), ...(replicas ?? []).map((r) => r.close())]);
    StoreMirror.pageSize = 5000;
    await rm(base, { recursive: true, force: true });
  });

  it('answers every query exactly as the in-memory index does, on two servers of one store', async () => {
    for (const query of QUERIES) {
      const expected = await memory.call('search', { query, top_k: 10, mode: 'bm25' });
      expect(expected.isError).toBe(false);
      for (const replica of replicas)
        expect(await replica.call('search', { query, top_k: 10, mode: 'bm25' })).toEqual(expected);
    }
    // A search that names no mode ranks as hybrid (the store holds the corpus vectors) — the same answer again.
    const hybrid = (await withVectors.call('search', { query: QUERIES[0] as string })).text;
    expect(hybrid).toMatch(/^Search results for: "rank chunks by bm25 score" \(mode=hybrid\)\n\n1\. /);
    for (const replica of replicas)
      expect((await replica.call('search', { query: QUERIES[0] as string })).text).toBe(hybrid);
    // A line inside a method of the copied source (found, not fixed: the file changes as the code does).
    const source = await readFile(join(repo, 'code-index/code-index.ts'), 'utf8');
    const line = source.split('\n').findIndex((text) => text.includes('skipsDir(name: string)')) + 2;
    expect(line).toBeGreaterThan(2);
    const related = { file_path: 'code-index/code-index.ts', line, top_k: 8 };
    const expected = await memory.call('find_related', related);
    expect(expected.text).toMatch(new RegExp(`^Chunks related to code-index/code-index\\.ts:${line}`));
    for (const replica of replicas) expect(await replica.call('find_related', related)).toEqual(expected);
  });

  it('ranks hybrid and semantic searches exactly as the in-memory index does: the same vectors, the same scores', async () => {
    for (const mode of ['hybrid', 'semantic'] as const)
      for (const query of QUERIES) {
        const expected = await withVectors.call('search', { query, top_k: 10, mode });
        if (expected.text !== 'No results found.') expect(expected.text).toContain(`(mode=${mode})`);
        for (const replica of replicas)
          expect(await replica.call('search', { query, top_k: 10, mode })).toEqual(expected);
      }
  });

  it('selects a repository of the store by `repo`, and names those it holds for an unknown one', async () => {
    const billing = await replicas[0]?.call('search', { query: 'charge the card', repo: 'billing' });
    expect(billing?.text).toMatch(
      /^Search results for: "charge the card" \(mode=hybrid\)\n\n1\. billing\.py:1-3/,
    );
    expect(
      (await replicas[1]?.call('search', { query: 'charge the card', repo: 'search' }))?.text,
    ).not.toContain('billing.py');
    expect(await replicas[1]?.call('search', { query: 'x', repo: 'nope' })).toEqual({
      isError: true,
      text: `"repo" nope is not in the code index at 127.0.0.1:${pg.port} (it holds billing, search); index it with mcpkit index <path> --store`,
    });
  });

  it('re-indexes only changed files, and both servers see the change', async () => {
    await writeFile(
      join(repo, 'quokka.ts'),
      'export function feedQuokka(leaves: number) {\n  return leaves;\n}\n',
    );
    await rm(join(repo, 'lexical/synonyms.ts'));
    const again = await mcpkit(base, 'index', repo, '--store', url);
    expect(again.stdout).toMatch(/; 1 file written, 1 removed in \d+ ms\n$/);
    for (const replica of replicas) {
      const found = await replica.call('search', { query: 'feedQuokka', top_k: 1 });
      expect(found.text).toContain('1. quokka.ts:1-3');
      expect((await replica.call('search', { query: 'synonymsOf', top_k: 20 })).text).not.toMatch(
        /^\d+\. lexical\/synonyms\.ts:/m,
      );
      expect(await replica.call('find_related', { file_path: 'lexical/synonyms.ts', line: 1 })).toMatchObject(
        {
          isError: true,
        },
      );
    }
    // A server started now (its copy loaded whole) and the two that applied the change answer alike: statistics
    // count live chunks only, however a copy got there; the re-index kept the basis and projected the new chunks.
    const store = await PgStore.connect(url);
    const fresh = await inProcess({ root: repo, store });
    await inMemory.withFiles(['quokka.ts', 'lexical/synonyms.ts']);
    const stored = await store.open('search');
    const paths = (hits: { chunk: { path: string; startLine: number } }[]) =>
      hits.map((hit) => `${hit.chunk.path}:${hit.chunk.startLine}`);
    try {
      for (const mode of ['hybrid', 'semantic', 'bm25'] as SearchMode[])
        for (const query of QUERIES) {
          const expected = await fresh.call('search', { query, top_k: 10, mode });
          for (const replica of replicas)
            expect(await replica.call('search', { query, top_k: 10, mode })).toEqual(expected);
          // The in-memory index told of the same change holds the same vectors (the kept basis, the new chunks
          // projected with it): semantic ranks the same chunks in the same order. (Its bm25 statistics still count
          // the removed chunks until it is built again; the store's count live chunks, as a fresh build.)
          if (mode === 'semantic')
            expect(paths(await stored.search(query, 10, mode))).toEqual(
              paths(inMemory.search(query, 10, mode)),
            );
        }
      expect(
        (await replicas[0]?.call('search', { query: 'feedQuokka leaves', top_k: 1, mode: 'semantic' }))?.text,
      ).toContain('1. quokka.ts:1-3');
    } finally {
      await fresh.close();
    }
    const nothing = await mcpkit(base, 'index', repo, '--store', url);
    expect(nothing.stdout).toMatch(/; 0 files written, 0 removed in \d+ ms\n$/);
  });

  it('two indexers of one repository at once: one writes, the other waits for it, and the index is whole', async () => {
    const target = parseStoreUrl(url);
    const { default: driver } = await import('pg');
    // The test holds the repository's lock (as an indexer mid-run would) until both indexers are waiting for it.
    const holder = new driver.Client({ connectionString: url });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', ['mcpkit-search-repo:twice']);
    const warnings: string[] = [];
    const running = [0, 1].map(() =>
      indexIntoStore(repo, target, { name: 'twice', onWarning: (m) => warnings.push(m) }),
    );
    await eventually(() => (warnings.length === 2 ? true : undefined));
    await holder.end();
    const runs = await Promise.all(running);
    expect(warnings).toEqual(Array(2).fill('another indexer is writing twice; waiting for it to finish'));
    // The one that got the lock first wrote every file; the other found them written.
    const files = runs[0]?.files ?? -1;
    expect(runs.map((r) => r.written).sort((a, b) => a - b)).toEqual([0, files]);
    expect(runs[1]?.files).toBe(files);
    const client = new driver.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT r.docs::int AS docs, (SELECT count(*)::int FROM mcpkit_chunks c WHERE c.repo = r.id) AS chunks,
           r.total_length = (SELECT sum(c.length) FROM mcpkit_chunks c WHERE c.repo = r.id) AS lengths,
           (SELECT count(*)::int FROM mcpkit_files f WHERE f.repo = r.id AND f.indexed) AS files,
           (SELECT count(*)::int FROM (SELECT path, start_line FROM mcpkit_chunks c WHERE c.repo = r.id
              GROUP BY path, start_line HAVING count(*) > 1) twice) AS duplicates
         FROM mcpkit_repos r WHERE r.name = 'twice'`,
      );
      expect(rows[0]).toEqual({
        docs: runs[0]?.chunks,
        chunks: runs[0]?.chunks,
        lengths: true,
        files,
        duplicates: 0,
      });
    } finally {
      await client.end();
    }
    const twice = await replicas[0]?.call('search', { query: 'feedQuokka', repo: 'twice', top_k: 1 });
    expect(twice?.text).toContain('1. quokka.ts:1-3');
  });

  it('a search during a re-index sees a file whole: its old chunks or its new ones', async () => {
    // Six functions of 30 lines: several chunks (the chunker merges small definitions up to 60 lines).
    const versioned = (version: string) =>
      Array.from({ length: 6 }, (_, i) =>
        [
          `export function wombatStep${i}() {`,
          ...Array.from({ length: 28 }, (_, j) => `  const step${j} = 'wombat ${version}';`),
          '}',
        ].join('\n'),
      ).join('\n\n');
    const store = await PgStore.connect(url);
    try {
      const index = await store.open('search');
      const seen = new Set<string>();
      let chunks = 0;
      for (let round = 0; round < 6; round++) {
        const version = round % 2 === 0 ? 'alder' : 'birch';
        await writeFile(join(repo, 'wombat.ts'), versioned(version));
        const indexing = mcpkit(base, 'index', repo, '--store', url);
        let done = false;
        void indexing.finally(() => {
          done = true;
        });
        while (!done) {
          const hits = await index.search('wombat', 20);
          const ours = hits.filter((h) => h.chunk.path === 'wombat.ts');
          const versions = new Set(ours.map((h) => /wombat (\w+)/.exec(h.chunk.content)?.[1]));
          // Once indexed, the file is all there (every chunk) and of one version: never some old and some new
          // chunks, never a moment without them.
          if (seen.size > 0) expect(ours.length).toBe(chunks);
          else if (ours.length > 0) chunks = ours.length;
          expect(versions.size).toBeLessThanOrEqual(1);
          for (const v of versions) seen.add(v as string);
        }
        expect((await indexing).code).toBe(0);
      }
      expect([...seen].sort()).toEqual(['alder', 'birch']);
      expect(chunks).toBeGreaterThan(2);
    } finally {
      await store.close();
    }
  });

  it('a store from before vectors (or indexed with --no-vectors) ranks as bm25 until an index run learns them', async () => {
    const { default: driver } = await import('pg');
    const client = new driver.Client({ connectionString: url });
    await client.connect();
    try {
      // Version 1 of the store: no vector tables.
      await client.query('DROP TABLE mcpkit_vectors, mcpkit_models');
      await client.query('UPDATE mcpkit_store SET version = 1');
      const bm25Only = async () => {
        const old = await inProcess({ root: other, store: await PgStore.connect(url) });
        try {
          expect((await old.call('search', { query: 'charge the card' })).text).toMatch(
            /^Search results for: "charge the card" \(mode=bm25\)\n\n1\. billing\.py:1-3/,
          );
        } finally {
          await old.close();
        }
      };
      await bm25Only();
      // --no-vectors brings the tables but learns nothing: still bm25.
      expect((await mcpkit(base, 'index', other, '--store', url, '--no-vectors')).code).toBe(0);
      await bm25Only();
      const again = await mcpkit(base, 'index', other, '--store', url);
      expect(again.stdout).toMatch(/; 0 files written, 0 removed in \d+ ms\n$/);
      expect((await client.query('SELECT version FROM mcpkit_store')).rows).toEqual([{ version: 2 }]);
      const now = await inProcess({ root: other, store: await PgStore.connect(url) });
      try {
        expect((await now.call('search', { query: 'charge the card' })).text).toMatch(
          /^Search results for: "charge the card" \(mode=hybrid\)\n\n1\. billing\.py:1-3/,
        );
      } finally {
        await now.close();
      }
    } finally {
      await client.end();
    }
  });

  it('a bad URL or an unreachable server is one line saying which and why', async () => {
    const usage = await mcpkit(base, 'index', repo, '--store', 'http://user:hunter2@example.com/db');
    expect(usage).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'mcpkit: --store http://user:***@example.com/db is not a PostgreSQL URL; write it as postgres://user:password@host:port/database\n',
    });
    expect(await mcpkit(base, 'index', repo, '--name', 'x')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'mcpkit: index: --name needs --store\n',
    });
    expect((await mcpkit(base, 'search-server', '--store', url, '--db', url, repo)).stderr).toBe(
      'mcpkit: search-server: --store answers from the stored index; --db and --model do not apply to it\n',
    );
    // A port nothing listens on: the server was stopped.
    const closed = `postgres://app:pw@127.0.0.1:1/db`;
    for (const args of [
      ['index', repo, '--store', closed],
      ['search-server', '--store', closed, repo],
    ]) {
      const failed = await mcpkit(base, ...args);
      expect(failed).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'mcpkit: cannot connect to PostgreSQL at 127.0.0.1:1: connection refused; is the server running and listening there? (--store)\n',
      });
    }
  });
});
