import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { startGitServer } from '../helpers/git-server.js';

let base: string;
let repo: string;
let other: string;
let client: Client;

const textOf = (result: { content?: unknown }) =>
  ((result.content as { text?: string }[] | undefined) ?? []).map((c) => c.text ?? '').join('');
const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

/** `mcpkit search-server …` with an SDK client on it, and what it wrote to stderr so far. */
async function connectSearch(
  args: string[],
  env?: Record<string, string>,
): Promise<{ client: Client; log: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'search-server', ...args],
    ...(env ? { env: { PATH: process.env.PATH ?? '', ...env } } : {}),
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  const connected = new Client({ name: 'search-test', version: '1' });
  await connected.connect(transport);
  return { client: connected, log: () => log };
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'mcpkit-search-server-'));
  repo = join(base, 'repo');
  other = join(base, 'other');
  await mkdir(join(repo, 'src'), { recursive: true });
  await mkdir(join(repo, 'test'), { recursive: true });
  await mkdir(other, { recursive: true });
  await writeFile(
    join(repo, 'src/retry.ts'),
    [
      '/** Calls fn until it succeeds, waiting longer after each failure. */',
      'export async function withRetry<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {',
      '  for (let i = 0; ; i++) {',
      '    try {',
      '      return await fn();',
      '    } catch (error) {',
      '      if (i + 1 >= attempts) throw error;',
      '      await new Promise((r) => setTimeout(r, 100 * 2 ** i));',
      '    }',
      '  }',
      '}',
    ].join('\n'),
  );
  await writeFile(
    join(repo, 'src/cache.ts'),
    'export class TtlCache {\n  get(key: string) {\n    return key;\n  }\n}\n',
  );
  await writeFile(
    join(repo, 'test/retry.test.ts'),
    "import { withRetry } from '../src/retry.js';\ntest('withRetry retries', () => withRetry(async () => 1));\n",
  );
  await writeFile(
    join(other, 'billing.py'),
    'def charge_card(amount):\n    """Charge the customer card."""\n    return amount\n',
  );
  const connected = await connectSearch([repo, '--allow-path', other]);
  client = connected.client;
}, 30_000);

afterAll(async () => {
  await client?.close();
  await rm(base, { recursive: true, force: true });
});

describe('mcpkit search-server', () => {
  it('serves search and find_related with semble’s argument names', async () => {
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
    const { client: plain, log } = await connectSearch([repo, '--no-vectors']);
    try {
      const hybrid = textOf(
        await plain.callTool({ name: 'search', arguments: { query: 'TtlCache', mode: 'hybrid', top_k: 1 } }),
      );
      expect(hybrid).toContain('(mode=bm25)\n\n1. src/cache.ts:1-5');
      await plain.callTool({ name: 'search', arguments: { query: 'TtlCache', mode: 'semantic', top_k: 1 } });
      expect(log().match(/vectors are off \(--no-vectors\)/g)).toHaveLength(1);
    } finally {
      await plain.close();
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
    const until = Date.now() + 10_000;
    let text = '';
    while (Date.now() < until) {
      text = textOf(await call('search', { query: 'brandNewHelper', top_k: 1 }));
      if (text.includes('src/fresh.ts')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(text).toContain('1. src/fresh.ts:1-3');
    await rm(join(repo, 'src/fresh.ts'));
  });

  it('keeps at most MCPKIT_SEARCH_CACHE_SIZE repositories; an evicted one is indexed again', async () => {
    const { client: small, log: readLog } = await connectSearch([repo, '--allow-path', other], {
      MCPKIT_SEARCH_CACHE_SIZE: '1',
    });
    try {
      const search = async (args: Record<string, unknown>) =>
        textOf(await small.callTool({ name: 'search', arguments: args }));
      expect(await search({ query: 'withRetry', mode: 'bm25' })).toContain('src/retry.ts');
      expect(await search({ query: 'charge the card', repo: other, mode: 'bm25' })).toContain('billing.py');
      expect(await search({ query: 'withRetry', mode: 'bm25' })).toContain('src/retry.ts');
      expect(readLog().match(new RegExp(`indexed ${repo}:`, 'g'))).toHaveLength(2);
      expect(readLog().match(new RegExp(`indexed ${other}:`, 'g'))).toHaveLength(1);
    } finally {
      await small.close();
    }
  });
});

describe('mcpkit search-server: repositories by URL', () => {
  it('clones from a git server on 127.0.0.1 when MCPKIT_ALLOW_PRIVATE_CLONE=1, and deletes the clone on eviction', async () => {
    const gitServer = await startGitServer({
      'ledger.go': 'package ledger\n\n// Reconcile balances the ledger.\nfunc Reconcile() {}\n',
    });
    const { client: cloner, log: readLog } = await connectSearch([repo], {
      HOME: base,
      MCPKIT_ALLOW_PRIVATE_CLONE: '1',
      MCPKIT_SEARCH_CACHE_SIZE: '1',
    });
    try {
      const found = await cloner.callTool({
        name: 'search',
        arguments: { query: 'balance the ledger', repo: gitServer.url },
      });
      expect(textOf(found)).toContain('1. ledger.go:1-4 (score=1.000)');
      const checkout = /cloned and indexed/.test(readLog());
      expect(checkout).toBe(true);
      const clonesBefore = (await readdir(tmpdir())).filter((d) => d.startsWith('mcpkit-clone-'));
      expect(clonesBefore.length).toBeGreaterThan(0);
      // Cache size 1: searching the root evicts the clone, whose checkout is deleted.
      await cloner.callTool({ name: 'search', arguments: { query: 'withRetry' } });
      const until = Date.now() + 5000;
      let left = clonesBefore;
      while (Date.now() < until && left.length > 0) {
        const now = new Set(await readdir(tmpdir()));
        left = clonesBefore.filter((d) => now.has(d));
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(left).toEqual([]);
    } finally {
      await cloner.close();
      await gitServer.close();
    }
  }, 30_000);
});

describe('mcpkit query and mcpkit index', () => {
  it('print results as text or JSON, and what was indexed', async () => {
    const { execFileSync } = await import('node:child_process');
    const run = (...args: string[]) => execFileSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
    expect(run('query', repo, 'TtlCache', '--top-k', '1')).toContain(
      '1. src/cache.ts:1-5 (score=1.000)\n```typescript\nexport class TtlCache {',
    );
    const json = JSON.parse(run('query', repo, 'withRetry', '--json', '--top-k', '1'));
    expect(json.results[0]).toMatchObject({
      path: 'src/retry.ts',
      startLine: 1,
      endLine: 11,
      symbols: ['withRetry'],
      language: 'typescript',
    });
    expect(run('index', repo)).toMatch(
      new RegExp(
        `^indexed 3 files, 3 chunks in \\d+ ms; saved ${join(repo, '.mcpkit/search-index.json')}\\n$`,
      ),
    );
  });

  it('starts from the saved index, re-chunking only files that changed since, with a warning', async () => {
    const { spawnSync } = await import('node:child_process');
    const query = (q: string) =>
      spawnSync(process.execPath, [CLI, 'query', repo, q, '--top-k', '1'], { encoding: 'utf8' });
    expect(query('TtlCache').stderr).toBe('');
    await writeFile(join(repo, 'src/cache.ts'), 'export class TtlCache {\n  purgeExpired() {}\n}\n');
    const changed = query('purgeExpired');
    expect(changed.stderr).toContain('is out of date (1 files new or changed, 0 gone); re-indexed those');
    expect(changed.stdout).toContain('1. src/cache.ts:1-3');
    await writeFile(join(repo, '.mcpkit/search-index.json'), '{ not json');
    const broken = query('purgeExpired');
    expect(broken.stderr).toContain('search-index.json is not valid JSON; indexing from scratch');
    expect(broken.stdout).toContain('1. src/cache.ts:1-3');
    // An index saved by an older chunker (its chunks may be cut differently) is not reused.
    await writeFile(
      join(repo, '.mcpkit/search-index.json'),
      JSON.stringify({ format: 'mcpkit-search-index', version: 1, chunker: 1, files: {} }),
    );
    expect(query('purgeExpired').stderr).toContain(
      'was written by another version of the chunker; indexing from scratch',
    );
  });
});

/** A tiny model2vec-format model written by the test: "backoff" lies near "retry" and "wait", far from "cache". */
async function writeTinyModel(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const vocab = ['[UNK]', 'retry', 'backoff', 'cache', '##ing', 'wait', 'ttl', 'http'];
  const vectors = [
    [0, 0, 0],
    [1, 0, 0],
    [0.9, 0.1, 0],
    [0, 1, 0],
    [0, 0, 1],
    [0.8, 0.2, 0],
    [0, 0.9, 0.1],
    [0, 0, 1],
  ];
  const tokenizer = {
    normalizer: { type: 'BertNormalizer', lowercase: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', vocab: Object.fromEntries(vocab.map((t, i) => [t, i])) },
  };
  await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
  const data = Buffer.alloc(vocab.length * 3 * 4);
  for (const [i, v] of vectors.flat().entries()) data.writeFloatLE(v, i * 4);
  const header = Buffer.from(
    JSON.stringify({
      embeddings: { dtype: 'F32', shape: [vocab.length, 3], data_offsets: [0, data.length] },
    }),
  );
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(header.length));
  await writeFile(join(dir, 'model.safetensors'), Buffer.concat([length, header, data]));
}

describe('static models (--model DIR)', () => {
  it('loads a model2vec-format model: WordPiece pieces, weighted mean, unit length', async () => {
    const { StaticModel } = await import('../../src/search/static-model.js');
    const dir = join(base, 'model');
    await writeTinyModel(dir);
    const model = await StaticModel.load(dir);
    expect(model.tokenize('Waiting for retry, then HTTP')).toEqual([5, 4, 0, 1, 0, 0, 7]);
    const vector = model.encode('retry');
    expect([...vector].map((v) => Math.round(v * 1000) / 1000)).toEqual([1, 0, 0]);
    expect(Math.hypot(...model.encode('waiting backoff'))).toBeCloseTo(1, 6);
    await expect(StaticModel.load(join(base, 'nope'))).rejects.toThrow(/tokenizer\.json: cannot be read/);
  });

  it('makes semantic and hybrid search find code by meaning; bm25 alone finds nothing for an unseen word', async () => {
    const { spawnSync } = await import('node:child_process');
    const dir = join(base, 'model');
    await writeTinyModel(dir);
    const query = (...args: string[]) =>
      spawnSync(process.execPath, [CLI, 'query', repo, 'backoff', '--top-k', '1', ...args], {
        encoding: 'utf8',
      });
    expect(query().stdout).toBe('No results found.\n');
    const semantic = query('--model', dir, '--mode', 'semantic');
    expect(semantic.stdout).toContain(
      'Search results for: "backoff" (mode=semantic)\n\n1. src/retry.ts:1-11',
    );
    expect(query('--model', dir).stdout).toContain('(mode=hybrid)\n\n1. src/retry.ts:1-11');
    const refused = query('--mode', 'semantic', '--no-vectors');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('--mode semantic needs vectors: drop --no-vectors or give --model DIR');
  });

  it('search-server --mode sets the mode of searches that name none; a call can still choose', async () => {
    const dir = join(base, 'model-server');
    await writeTinyModel(dir);
    const { client: served } = await connectSearch([repo, '--model', dir, '--mode', 'semantic']);
    try {
      const search = async (args: Record<string, unknown>) =>
        textOf(await served.callTool({ name: 'search', arguments: { top_k: 1, ...args } }));
      expect(await search({ query: 'backoff' })).toContain('(mode=semantic)\n\n1. src/retry.ts:1-11');
      expect(await search({ query: 'backoff', mode: 'bm25' })).toBe('No results found.');
    } finally {
      await served.close();
    }
    const { spawnSync } = await import('node:child_process');
    const refused = spawnSync(process.execPath, [CLI, 'search-server', repo, '--mode', 'fuzzy'], {
      encoding: 'utf8',
    });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('--mode must be bm25, semantic or hybrid, got "fuzzy"');
  });
});
