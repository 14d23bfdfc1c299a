import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSearchServer,
  type SearchServer,
  type SearchServerOptions,
} from '../../src/search/server/search-server.js';
import { CLI } from '../helpers/cli.js';
import { missingEngines } from '../helpers/engines.js';
import { eventually } from '../helpers/eventually.js';
import { startGitServer } from '../helpers/git-server.js';
import { mcpkit, textOf, writeSearchRepos, writeTinyModel } from './fixtures.js';

let base: string;
let repo: string;
let other: string;
let served: Connected;
let client: Client;

const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

interface Connected {
  client: Client;
  server: SearchServer;
  /** What the server logged so far, one message a line. */
  log(): string;
  close(): Promise<void>;
}

/** A search server in this process with an SDK client on it over linked in-memory transports. */
async function connectSearch(options: Partial<SearchServerOptions> = {}): Promise<Connected> {
  const lines: string[] = [];
  const server = createSearchServer({ root: repo, env: {}, log: (m) => lines.push(m), ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await (await server.factory({} as Parameters<McpServerFactory>[0])).connect(serverSide);
  const connected = new Client({ name: 'search-test', version: '1' });
  await connected.connect(clientSide);
  return {
    client: connected,
    server,
    log: () => lines.join('\n'),
    close: async () => {
      await connected.close();
      await server.close();
    },
  };
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'mcpkit-search-server-'));
  repo = join(base, 'repo');
  other = join(base, 'other');
  await writeSearchRepos(repo, other);
  served = await connectSearch({ allowPaths: [other] });
  client = served.client;
  await served.server.ready();
});

afterAll(async () => {
  await served?.close();
  await rm(base, { recursive: true, force: true });
});

describe('mcpkit search-server', () => {
  it('serves search and find_related with semble’s argument names, over stdio from the CLI too', async () => {
    // The one spawned server: the CLI wiring and stdio framing end to end; everything else runs in-process.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'search-server', repo],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    const stdio = new Client({ name: 'search-test', version: '1' });
    await stdio.connect(transport);
    try {
      expect(await stdio.listTools()).toEqual(await client.listTools());
    } finally {
      await stdio.close();
    }
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search', 'find_related']);
    expect(Object.keys(tools[0]?.inputSchema.properties ?? {})).toEqual(['query', 'repo', 'mode', 'top_k']);
    expect(tools[0]?.inputSchema.required).toEqual(['query']);
    expect(Object.keys(tools[1]?.inputSchema.properties ?? {})).toEqual([
      'file_path',
      'line',
      'repo',
      'top_k',
    ]);
  });

  it('answers a search with numbered results: path:lines, score and the code', async () => {
    const result = await call('search', { query: 'retry a failing call with backoff', top_k: 2 });
    const text = textOf(result);
    expect(result.isError).toBeFalsy();
    expect(text.split('\n').slice(0, 4)).toEqual([
      'Search results for: "retry a failing call with backoff" (mode=hybrid)',
      '',
      '1. src/retry.ts:1-11 (score=1.000)',
      '```typescript',
    ]);
    expect(text).toContain('export async function withRetry');
    expect(text).toMatch(/\n2\. test\/retry\.test\.ts:1-2 \(score=0\.\d{3}\)/);
  });

  it('learns vectors from the code: semantic search ranks by them; --no-vectors falls back to bm25 with one warning', async () => {
    const semantic = textOf(await call('search', { query: 'TtlCache', mode: 'semantic', top_k: 1 }));
    expect(semantic).toContain('(mode=semantic)\n\n1. src/cache.ts:1-5');
    const { client: plain, log, close } = await connectSearch({ vectors: 'none' });
    try {
      const hybrid = textOf(
        await plain.callTool({ name: 'search', arguments: { query: 'TtlCache', mode: 'hybrid', top_k: 1 } }),
      );
      expect(hybrid).toContain('(mode=bm25)\n\n1. src/cache.ts:1-5');
      await plain.callTool({ name: 'search', arguments: { query: 'TtlCache', mode: 'semantic', top_k: 1 } });
      expect(log().match(/vectors are off \(--no-vectors\)/g)).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it('finds code related to a file and line, the chunk itself left out', async () => {
    const result = await call('find_related', { file_path: 'src/retry.ts', line: 5, top_k: 3 });
    const text = textOf(result);
    expect(text.split('\n')[0]).toBe('Chunks related to src/retry.ts:5');
    expect(text).toContain('test/retry.test.ts:1-2');
    expect(text).not.toContain('src/retry.ts:1-11');
  });

  it('searches another allowed directory, and refuses one outside them, and URLs', async () => {
    expect(textOf(await call('search', { query: 'charge the card', repo: other }))).toContain(
      '1. billing.py:1-3',
    );
    const outside = await call('search', { query: 'x', repo: tmpdir() });
    expect(outside.isError).toBe(true);
    expect(textOf(outside)).toContain('is outside the directories this server may read');
    const refusals: [string, string][] = [
      ['file:///etc/passwd', 'only https:// and http:// repositories can be cloned (not file:)'],
      ['ssh://git@example.com/org/repo', 'only https:// and http:// repositories can be cloned (not ssh:)'],
      ['git@github.com:org/repo.git', 'ssh (scp-form) URLs are not accepted'],
      ['https://user:secret@example.com/repo.git', 'credentials in the URL are not accepted'],
      ['http://127.0.0.1:9/repo.git', '127.0.0.1 is a loopback, private or link-local address'],
      ['http://localhost/repo.git', 'localhost is a loopback, private or link-local address'],
      ['http://169.254.169.254/latest', '169.254.169.254 is a loopback, private or link-local address'],
      ['http://10.1.2.3/repo.git', '10.1.2.3 is a loopback'],
      ['http://100.64.0.7/repo.git', '100.64.0.7 is a loopback'],
      ['http://[::1]/repo.git', '::1 is a loopback'],
      ['http://[fd12::1]/repo.git', 'fd12::1 is a loopback'],
    ];
    for (const [url, message] of refusals) {
      const refused = await call('search', { query: 'x', repo: url });
      expect(refused.isError, url).toBe(true);
      expect(textOf(refused)).toContain(message);
    }
  });

  it('answers bad input with isError naming the problem, and keeps serving', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['search', { query: '   ' }, '"query" must be a non-empty string'],
      ['search', { query: 'x', mode: 'fuzzy' }, '"mode" must be one of hybrid, semantic, bm25; got "fuzzy"'],
      ['search', { query: 'x', top_k: 0 }, '"top_k" must be a whole number from 1 to 100'],
      ['find_related', { file_path: 'src/nope.ts', line: 1 }, 'src/nope.ts is not in the index of'],
      ['find_related', { file_path: 'src/retry.ts', line: 999 }, 'no indexed code at src/retry.ts:999'],
      ['find_related', { file_path: 'src/retry.ts', line: 0 }, '"line" must be a whole number from 1'],
    ];
    for (const [tool, args, message] of cases) {
      const result = await call(tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(result)).toContain(message);
    }
    expect(textOf(await call('search', { query: 'withRetry', top_k: 1 }))).toContain('src/retry.ts');
  });
});

describe('mcpkit search-server: freshness and the repository cache', () => {
  it('sees a file shortly after it is saved', async () => {
    await writeFile(join(repo, 'src/fresh.ts'), 'export function brandNewHelper() {\n  return 42;\n}\n');
    const text = await eventually(async () => {
      const answer = textOf(await call('search', { query: 'brandNewHelper', top_k: 1 }));
      return answer.includes('src/fresh.ts') ? answer : undefined;
    });
    expect(text).toContain('1. src/fresh.ts:1-3');
    await rm(join(repo, 'src/fresh.ts'));
  });

  it('follows the build output of a package that ships only dist/ (the walk indexes it, so the watcher watches it)', async () => {
    const pkg = join(base, 'dist-only');
    await mkdir(join(pkg, 'dist'), { recursive: true });
    await writeFile(join(pkg, 'dist/index.js'), 'export function debounceCalls(fn) {\n  return fn;\n}\n');
    const { client: dist, server, close } = await connectSearch({ root: pkg, vectors: 'none' });
    try {
      await server.ready();
      await writeFile(join(pkg, 'dist/index.js'), 'export function throttleCalls(fn) {\n  return fn;\n}\n');
      const text = await eventually(async () => {
        const result = await dist.callTool({
          name: 'search',
          arguments: { query: 'throttleCalls', top_k: 1 },
        });
        const answer = textOf(result);
        return answer.includes('function throttleCalls') ? answer : undefined;
      });
      expect(text).toContain('1. dist/index.js:1-3');
    } finally {
      await close();
    }
  });

  it('keeps at most MCPKIT_SEARCH_CACHE_SIZE repositories; an evicted one is indexed again', async () => {
    const {
      client: small,
      log: readLog,
      close,
    } = await connectSearch({ allowPaths: [other], env: { MCPKIT_SEARCH_CACHE_SIZE: '1' } });
    try {
      const search = async (args: Record<string, unknown>) =>
        textOf(await small.callTool({ name: 'search', arguments: args }));
      expect(await search({ query: 'withRetry', mode: 'bm25' })).toContain('src/retry.ts');
      expect(await search({ query: 'charge the card', repo: other, mode: 'bm25' })).toContain('billing.py');
      expect(await search({ query: 'withRetry', mode: 'bm25' })).toContain('src/retry.ts');
      expect(readLog().match(new RegExp(`indexed ${repo}:`, 'g'))).toHaveLength(2);
      expect(readLog().match(new RegExp(`indexed ${other}:`, 'g'))).toHaveLength(1);
    } finally {
      await close();
    }
  });
});

describe.skipIf(missingEngines('git'))('mcpkit search-server: repositories by URL', () => {
  it('clones from a git server on 127.0.0.1 when MCPKIT_ALLOW_PRIVATE_CLONE=1, and deletes the clone on eviction', async () => {
    const gitServer = await startGitServer({
      'ledger.go': 'package ledger\n\n// Reconcile balances the ledger.\nfunc Reconcile() {}\n',
    });
    const clones = async () => (await readdir(tmpdir())).filter((d) => d.startsWith('mcpkit-clone-'));
    const before = new Set(await clones());
    const {
      client: cloner,
      log: readLog,
      close,
    } = await connectSearch({
      env: {
        PATH: process.env.PATH ?? '',
        HOME: base,
        MCPKIT_ALLOW_PRIVATE_CLONE: '1',
        MCPKIT_SEARCH_CACHE_SIZE: '1',
      },
    });
    try {
      const found = await cloner.callTool({
        name: 'search',
        arguments: { query: 'balance the ledger', repo: gitServer.url },
      });
      expect(textOf(found)).toContain('1. ledger.go:1-4 (score=1.000)');
      expect(readLog()).toContain(`cloned and indexed ${gitServer.url}`);
      const ours = (await clones()).filter((d) => !before.has(d));
      expect(ours).toHaveLength(1);
      // Cache size 1: searching the root evicts the clone, whose checkout is deleted.
      await cloner.callTool({ name: 'search', arguments: { query: 'withRetry' } });
      await eventually(async () => {
        const now = new Set(await clones());
        return ours.every((d) => !now.has(d)) ? true : undefined;
      });
    } finally {
      await close();
      await gitServer.close();
    }
  });
});

describe('search-server --mode', () => {
  it('search-server --mode sets the mode of searches that name none; a call can still choose', async () => {
    const dir = join(base, 'model-server');
    await writeTinyModel(dir);
    const { StaticModel } = await import('../../src/search/vectors/static-model.js');
    const model = await StaticModel.load(dir);
    const { client: semantic, close } = await connectSearch({ model, mode: 'semantic' });
    try {
      const search = async (args: Record<string, unknown>) =>
        textOf(await semantic.callTool({ name: 'search', arguments: { top_k: 1, ...args } }));
      expect(await search({ query: 'backoff' })).toContain('(mode=semantic)\n\n1. src/retry.ts:1-11');
      expect(await search({ query: 'backoff', mode: 'bm25' })).toBe('No results found.');
    } finally {
      await close();
    }
    const refused = await mcpkit(base, 'search-server', repo, '--mode', 'fuzzy');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--mode must be bm25, semantic or hybrid, got "fuzzy"');
  });
});
