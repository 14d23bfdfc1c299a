// Input that used to be silently wrong (issue 34): a repository path that is missing or a file, and a saved index
// that called itself out of date at every start because of a file it had left out.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMcpkitError } from '../../src/errors/index.js';
import { CodeIndex } from '../../src/search/index.js';
import { mcpkit } from './fixtures.js';

let base: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'mcpkit-search-input-'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('a repository path that is not a directory', () => {
  it('is one line and exit 2 for index, query and search-server, and nothing is written', async () => {
    const missing = join(base, 'missing');
    const line = `mcpkit: ${missing} does not exist: give the directory of the repository to search\n`;
    for (const args of [
      ['index', missing],
      ['query', missing, 'foo'],
      ['search-server', missing],
    ]) {
      const result = await mcpkit(base, ...args);
      expect({ args, ...result }).toEqual({ args, code: 2, stdout: '', stderr: line });
    }
    expect(existsSync(missing)).toBe(false);
  });

  it('names a file given as the repository and says what to give instead', async () => {
    const file = join(base, 'somefile.txt');
    await writeFile(file, 'just text\n');
    for (const args of [
      ['index', file],
      ['query', file, 'text'],
      ['search-server', file],
    ]) {
      const result = await mcpkit(base, ...args);
      expect({ args, ...result }).toEqual({
        args,
        code: 2,
        stdout: '',
        stderr: `mcpkit: ${file} is not a directory: give the directory of the repository to search (such as ${base})\n`,
      });
    }
  });

  it('is refused by the library as an INVALID_ARGUMENT error', async () => {
    const missing = join(base, 'gone');
    const refused = await CodeIndex.build(missing).catch((error: unknown) => error);
    expect(isMcpkitError(refused, 'INVALID_ARGUMENT')).toBe(true);
    expect((refused as Error).message).toBe(
      `${missing} does not exist: give the directory of the repository to search`,
    );
    expect(existsSync(missing)).toBe(false);
  });
});

describe('a saved index with a file it left out', () => {
  it('is taken as up to date while nothing changed, and counts in singular for one file', async () => {
    const repo = join(base, 'with-binary');
    await mkdir(join(repo, 'src'), { recursive: true });
    await writeFile(join(repo, 'src/cache.ts'), 'export class TtlCache {\n  get() {}\n}\n');
    // Text by its name, not by its bytes: walked, then left out as not text.
    await writeFile(join(repo, 'src/blob.ts'), Buffer.from([0, 1, 2, 0, 255, 0, 3]));
    const indexed = await mcpkit(base, 'index', repo, '--no-vectors');
    expect(indexed.code).toBe(0);
    expect(indexed.stdout).toMatch(/^indexed 1 file, 1 chunk in \d+ ms \(1 left out as not text\); saved /);
    for (let start = 0; start < 2; start++) {
      const query = await mcpkit(base, 'query', repo, 'TtlCache', '--top-k', '1', '--no-vectors');
      expect({ code: query.code, stderr: query.stderr }).toEqual({ code: 0, stderr: '' });
      expect(query.stdout).toContain('1. src/cache.ts:1-3');
    }
    // A changed left-out file is read again: once, in singular.
    await writeFile(join(repo, 'src/blob.ts'), Buffer.from([0, 9, 9, 0]));
    const changed = await mcpkit(base, 'query', repo, 'TtlCache', '--top-k', '1', '--no-vectors');
    expect(changed.stderr).toBe(
      `mcpkit query: the saved index of ${repo} is out of date (1 file new or changed, 0 gone); re-indexed those\n`,
    );
  });
});
