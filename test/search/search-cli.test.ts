import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHUNKER_VERSION } from '../../src/search/stores/saved-index.js';
import { mcpkit, writeSearchRepos, writeTinyModel } from './fixtures.js';

let base: string;
let repo: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'mcpkit-search-cli-'));
  repo = join(base, 'repo');
  await writeSearchRepos(repo, join(base, 'other'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('mcpkit query and mcpkit index', () => {
  it('print results as text or JSON, and what was indexed', async () => {
    const out = async (...args: string[]) => {
      const { code, stdout, stderr } = await mcpkit(base, ...args);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      return stdout;
    };
    expect(await out('query', repo, 'TtlCache', '--top-k', '1')).toContain(
      '1. src/cache.ts:1-5 (score=1.000)\n```typescript\nexport class TtlCache {',
    );
    const json = JSON.parse(await out('query', repo, 'withRetry', '--json', '--top-k', '1'));
    expect(json.results[0]).toMatchObject({
      path: 'src/retry.ts',
      startLine: 1,
      endLine: 11,
      symbols: ['withRetry'],
      language: 'typescript',
      // The shown score, as in the text: the best hit is 1.
      score: 1,
    });
    expect(await out('index', repo)).toMatch(
      new RegExp(
        `^indexed 3 files, 3 chunks in \\d+ ms, vectors in \\d+ ms; saved ${join(repo, '.mcpkit/search-index.bin')}\\n$`,
      ),
    );
    // The saved index is never committed: `mcpkit index` leaves a .gitignore of `*` beside it.
    expect(await readFile(join(repo, '.mcpkit/.gitignore'), 'utf8')).toBe('*\n');
  });

  it('starts from the saved index, re-chunking only files that changed since, with a warning', async () => {
    const query = (q: string) => mcpkit(base, 'query', repo, q, '--top-k', '1');
    expect((await query('TtlCache')).stderr).toBe('');
    await writeFile(join(repo, 'src/cache.ts'), 'export class TtlCache {\n  purgeExpired() {}\n}\n');
    const changed = await query('purgeExpired');
    expect(changed.stderr).toContain('is out of date (1 file new or changed, 0 gone); re-indexed those');
    expect(changed.stdout).toContain('1. src/cache.ts:1-3');
    await writeFile(join(repo, '.mcpkit/search-index.bin'), '{ not an index');
    const broken = await query('purgeExpired');
    expect(broken.stderr).toBe(
      `mcpkit query: ${join(repo, '.mcpkit/search-index.bin')} is not an mcpkit search index; indexing from scratch\n`,
    );
    expect(broken.stdout).toContain('1. src/cache.ts:1-3');
    // An index saved by another version (its chunks may be cut differently) is not reused: one warning line.
    expect((await mcpkit(base, 'index', repo)).code).toBe(0);
    const file = join(repo, '.mcpkit/search-index.bin');
    const saved = await readFile(file);
    await writeFile(
      file,
      Buffer.from(
        saved.toString('latin1').replace(`"chunker":${CHUNKER_VERSION}`, `"chunker":${CHUNKER_VERSION - 1}`),
        'latin1',
      ),
    );
    const other = await query('purgeExpired');
    expect(other.stderr).toBe(
      `mcpkit query: ${file} was written by another version of mcpkit; indexing from scratch\n`,
    );
    expect(other.stdout).toContain('1. src/cache.ts:1-3');
  });
});

describe('mcpkit index on hostile content', () => {
  it('says what it left out and why', async () => {
    const hostile = join(base, 'hostile');
    await mkdir(join(hostile, 'src'), { recursive: true });
    await writeFile(join(hostile, 'src/ok.ts'), 'export function fine() {\n  return 1;\n}\n');
    // Bytes that are not text under a code extension, without a NUL (the old sniff let them through).
    await writeFile(
      join(hostile, 'src/blob.ts'),
      Buffer.from(Array.from({ length: 4096 }, (_, i) => 1 + (i % 30))),
    );
    const { code, stdout } = await mcpkit(base, 'index', hostile);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^indexed 1 file, 1 chunk in \d+ ms, vectors in \d+ ms \(1 left out as not text\); saved /,
    );
  });
});

describe('static models (--model DIR)', () => {
  it('loads a model2vec-format model: WordPiece pieces, weighted mean, unit length', async () => {
    const { StaticModel } = await import('../../src/search/vectors/static-model.js');
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
    const dir = join(base, 'model');
    await writeTinyModel(dir);
    const query = (...args: string[]) => mcpkit(base, 'query', repo, 'backoff', '--top-k', '1', ...args);
    expect((await query()).stdout).toBe('No results found.\n');
    const semantic = await query('--model', dir, '--mode', 'semantic');
    expect(semantic.stdout).toContain(
      'Search results for: "backoff" (mode=semantic)\n\n1. src/retry.ts:1-11',
    );
    expect((await query('--model', dir)).stdout).toContain('(mode=hybrid)\n\n1. src/retry.ts:1-11');
    const refused = await query('--mode', 'semantic', '--no-vectors');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--mode semantic needs vectors: drop --no-vectors or give --model DIR');
  });
});
