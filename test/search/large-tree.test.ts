// What a large tree needs, shown on small ones: an answer while the index is built (with how far it is), a saved
// index that loads instead of being rebuilt, the watcher keeping a loaded index current, and a tree whose
// .gitignore leaves out everything said so.
import { mkdir, mkdtemp, readdir, readFile, rm, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { CodeIndex } from '../../src/search/code-index/code-index.js';
import { createSearchServer, type SearchServer } from '../../src/search/server/search-server.js';
import { eventually } from '../helpers/eventually.js';
import { mcpkit, textOf } from './fixtures.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-large-tree-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `count` TypeScript files, `src/mNNN.ts`, each defining `helperNNN`. */
async function writeModules(root: string, count: number): Promise<void> {
  await mkdir(join(root, 'src'), { recursive: true });
  for (let i = 0; i < count; i++) {
    const n = String(i).padStart(3, '0');
    await writeFile(
      join(root, `src/m${n}.ts`),
      `/** Module ${n}. */\nexport function helper${n}(x: number): number {\n  return x + ${i};\n}\n`,
    );
  }
}

async function connect(server: SearchServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await (await server.factory({} as Parameters<McpServerFactory>[0])).connect(serverSide);
  const client = new Client({ name: 'large-tree-test', version: '1' });
  await client.connect(clientSide);
  return client;
}

describe('a search while the index is built', () => {
  it('answers from the files indexed so far, in the walker order, and knows how far the build is', async () => {
    await writeModules(dir, 4);
    const seen: string[][] = [];
    const { index, done } = CodeIndex.open(dir, {
      saved: false,
      vectors: 'none',
      onProgress: (files) => {
        if (files !== 2) return;
        seen.push([
          ...['helper000', 'helper001'].map((q) => index.search(q, 1)[0]?.chunk.path ?? '-'),
          String(index.hasFile('src/m003.ts')),
        ]);
        seen.push([`${index.progress.done} of ${index.progress.total}`, String(index.complete)]);
      },
    });
    await done;
    expect(seen).toEqual([
      ['src/m000.ts', 'src/m001.ts', 'false'],
      ['2 of 4', 'false'],
    ]);
    expect(index.complete).toBe(true);
    expect(index.search('helper003', 1)[0]?.chunk.path).toBe('src/m003.ts');
  });

  it('the search tool answers at once with "partial: N of M files" and progress, never "try again"', async () => {
    await writeModules(dir, 300);
    const server = createSearchServer({ root: dir, env: {}, log: () => undefined, waitMs: 0 });
    const client = await connect(server);
    try {
      const progress: { progress: number; message?: string | undefined }[] = [];
      const early = textOf(
        await client.callTool(
          { name: 'search', arguments: { query: 'helper299', top_k: 1 } },
          { onprogress: (p) => progress.push(p) },
        ),
      );
      expect(early.split('\n')[0]).toMatch(
        /^(Search results for: "helper299" \(mode=bm25, partial: \d+ of \d+ files\)|No results found\. \(partial: (\d+ of \d+ files|listing the files, none indexed yet)\))$/,
      );
      expect(progress[0]?.message).toBe('indexing');
      await server.ready();
      const later = textOf(
        await client.callTool({ name: 'search', arguments: { query: 'helper299', top_k: 1 } }),
      );
      expect(later.split('\n').slice(0, 3)).toEqual([
        'Search results for: "helper299" (mode=hybrid)',
        '',
        '1. src/m299.ts:1-4 (score=1.000)',
      ]);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('a saved index', () => {
  it('is reused after a restart without chunking again: what was saved is what is searched', async () => {
    await writeModules(dir, 3);
    const file = join(dir, 'src/m001.ts');
    await utimes(file, 1_700_000_000, 1_700_000_000);
    await (await CodeIndex.build(dir, { saved: false })).save();
    // Same size, same mtime, other words: a reused index still knows the saved words, a rebuilt one would not.
    await writeFile(file, (await readFile(file, 'utf8')).replace('helper001', 'renamed01'));
    await utimes(file, 1_700_000_000, 1_700_000_000);
    let chunked = 0;
    const warnings: string[] = [];
    const loaded = await CodeIndex.build(dir, {
      onProgress: () => chunked++,
      onWarning: (m) => warnings.push(m),
    });
    expect({ chunked, warnings }).toEqual({ chunked: 0, warnings: [] });
    expect(loaded.search('helper001', 1)[0]?.chunk.path).toBe('src/m001.ts');
    expect(loaded.search('renamed01', 1)).toEqual([]);
    // Its vectors came with it: hybrid at once, no learning.
    expect(loaded.hasVectors).toBe(true);
    expect(loaded.search('helper002', 1, 'hybrid')[0]?.chunk.path).toBe('src/m002.ts');
  });

  it('takes documents from another source (a database schema) beside the files, and saves only the files', async () => {
    await writeModules(dir, 2);
    const index = await CodeIndex.build(dir, { saved: false, vectors: 'none' });
    const table = {
      path: 'db/orders.sql',
      startLine: 1,
      endLine: 3,
      language: 'sql',
      symbols: ['orders'],
      content: 'CREATE TABLE orders (\n  id integer primary key\n);',
    };
    index.addDocuments('db', [table]);
    expect(index.search('orders', 1)[0]?.chunk).toEqual(table);
    index.addDocuments('db', []);
    expect(index.search('orders', 1)).toEqual([]);
    index.addDocuments('db', [table]);
    await index.save();
    const loaded = await CodeIndex.build(dir, { vectors: 'none' });
    expect(loaded.search('orders', 1)).toEqual([]);
    expect(loaded.search('helper001', 1)[0]?.chunk.path).toBe('src/m001.ts');
  });

  it('written by another version is rebuilt, with one warning line', async () => {
    await writeModules(dir, 2);
    const file = await (await CodeIndex.build(dir, { saved: false })).save();
    const bytes = await readFile(file);
    await writeFile(
      file,
      Buffer.from(bytes.toString('latin1').replace('"format":2', '"format":1'), 'latin1'),
    );
    const warnings: string[] = [];
    const rebuilt = await CodeIndex.build(dir, { onWarning: (m) => warnings.push(m) });
    expect(warnings).toEqual([`${file} was written by another version of mcpkit; indexing from scratch`]);
    expect(rebuilt.search('helper001', 1)[0]?.chunk.path).toBe('src/m001.ts');
  });

  it('is kept current by the watcher: a changed, an added and a deleted file are searched as they are now', async () => {
    await writeModules(dir, 3);
    await (await CodeIndex.build(dir, { saved: false })).save();
    const lines: string[] = [];
    const server = createSearchServer({ root: dir, env: {}, log: (m) => lines.push(m) });
    const client = await connect(server);
    const top = async (query: string) =>
      textOf(await client.callTool({ name: 'search', arguments: { query, top_k: 1, mode: 'bm25' } })).split(
        '\n',
      )[2];
    try {
      await server.ready();
      expect(lines.filter((line) => line.includes('out of date'))).toEqual([]);
      await writeFile(join(dir, 'src/m000.ts'), 'export function changedHelper() {\n  return 0;\n}\n');
      await writeFile(join(dir, 'src/added.ts'), 'export function addedHelper() {\n  return 1;\n}\n');
      await unlink(join(dir, 'src/m002.ts'));
      await eventually(async () =>
        (await top('changedHelper')) === '1. src/m000.ts:1-3 (score=1.000)' ? true : undefined,
      );
      await eventually(async () =>
        (await top('addedHelper'))?.startsWith('1. src/added.ts') ? true : undefined,
      );
      // A query for a name gone finds only what shares a word with it (`helper`), never the deleted file.
      await eventually(async () => (!(await top('helper002'))?.includes('src/m002.ts') ? true : undefined));
      expect(await top('helper001')).toBe('1. src/m001.ts:1-4 (score=1.000)');
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('the search server', () => {
  it('saves its index in the user cache directory and starts from it next time, leaving the tree clean', async () => {
    await writeModules(dir, 3);
    const cache = join(dir, '..', `${dir.split('/').pop()}-cache`);
    const env = { MCPKIT_CACHE_DIR: cache };
    try {
      const first: string[] = [];
      const one = createSearchServer({ root: dir, env, log: (m) => first.push(m) });
      await one.ready();
      const saved = await eventually(async () => {
        const files = await readdir(join(cache, 'search')).catch(() => []);
        // Written atomically: a temp file first, renamed once complete.
        return files.some((file) => file.endsWith('.bin')) ? files : undefined;
      });
      await one.close();
      expect(saved).toEqual([expect.stringMatching(/^mcpkit-large-tree-\w+-[0-9a-f]{16}\.bin$/)]);
      expect(await readdir(dir)).toEqual(['src']);
      const second: string[] = [];
      const two = createSearchServer({ root: dir, env, log: (m) => second.push(m) });
      const client = await connect(two);
      try {
        await two.ready();
        expect(second[0]).toMatch(
          new RegExp(
            `^loaded the saved index of ${dir} \\(${join(cache, 'search')}/.+\\.bin\\): 3 files, 3 chunks in \\d+ ms$`,
          ),
        );
        const answer = textOf(
          await client.callTool({ name: 'search', arguments: { query: 'helper002', top_k: 1 } }),
        );
        expect(answer.split('\n').slice(0, 3)).toEqual([
          'Search results for: "helper002" (mode=hybrid)',
          '',
          '1. src/m002.ts:1-4 (score=1.000)',
        ]);
      } finally {
        await client.close();
        await two.close();
      }
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });
});

describe('a build over its memory budget', () => {
  it('stops reading files, says so in one line, and searches what it indexed with bm25', async () => {
    await writeModules(dir, 3);
    const warnings: string[] = [];
    // Any process is over 1 MB: the budget is reached at the first check, after the first file.
    const index = await CodeIndex.build(dir, {
      saved: false,
      memoryLimitMb: 1,
      onWarning: (m) => warnings.push(m),
    });
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `^stopped indexing ${dir} at 1 of 3 files: the process uses \\d+ MB, over its 1 MB budget \\(MCPKIT_SEARCH_MEMORY_MB\\); searching those files with bm25 only$`,
        ),
      ),
    ]);
    expect(index.files).toBe(1);
    expect(index.hasVectors).toBe(false);
    expect(index.search('helper000', 1)[0]?.chunk.path).toBe('src/m000.ts');
  });
});

describe('mcpkit index on a terminal', () => {
  it('draws a progress bar on stderr and clears it; a log gets none', async () => {
    await writeModules(dir, 3);
    const runIndex = async (tty: boolean) => {
      let stderr = '';
      let stdout = '';
      const code = await run(['index', dir, '--no-vectors'], {
        out: (text) => {
          stdout += text;
        },
        err: (text) => {
          stderr += text;
        },
        cwd: dir,
        env: { PATH: process.env.PATH ?? '' },
        stdin: Readable.from([]),
        stderrIsTTY: tty,
      });
      return { code, stdout, stderr };
    };
    const terminal = await runIndex(true);
    expect(terminal.code).toBe(0);
    expect(terminal.stderr).toContain('\r\x1b[2K[########################] 3/3 files indexed, 3 chunks');
    expect(terminal.stderr.endsWith('\r\x1b[2K')).toBe(true);
    expect(terminal.stdout).toMatch(/^indexed 3 files, 3 chunks in \d+ ms; saved /);
    expect((await runIndex(false)).stderr).toBe('');
  });
});

describe('a tree whose .gitignore leaves out everything at its top', () => {
  it('is reported naming the file, the line and the rule, in one line', async () => {
    await writeModules(dir, 2);
    await mkdir(join(dir, 'lib'));
    await writeFile(join(dir, 'lib/b.c'), 'int b(void) { return 1; }\n');
    await writeFile(join(dir, 'Makefile'), 'all:\n\techo\n');
    // As Debian's linux-source has it.
    await writeFile(join(dir, '.gitignore'), '# everything but debian/\n/*\n!/debian/\n');
    const { code, stdout, stderr } = await mcpkit(dir, 'index', dir, '--no-vectors');
    expect(code).toBe(0);
    expect(stderr).toBe(
      `mcpkit index: nothing to index in ${dir}: ${join(dir, '.gitignore')} line 2 ("/*") ignores 3 of the 3 entries at its top; remove that rule or search a directory it does not cover\n`,
    );
    expect(stdout).toMatch(/^indexed 0 files, 0 chunks in \d+ ms; saved /);
  });
});
