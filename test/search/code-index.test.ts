import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkFile } from '../../src/search/chunks/chunker.js';
import { CodeIndex } from '../../src/search/code-index/code-index.js';
import { walk } from '../../src/search/files/walk.js';
import { formatResults, resultsJson } from '../../src/search/ranking/results.js';

let root: string;
const files: Record<string, string | Buffer> = {
  'src/router.ts': [
    "import { parse } from './url.js';",
    '',
    '/** Matches a request path against the registered routes. */',
    'export function matchRoute(path: string, routes: string[]): string | undefined {',
    '  return routes.find((route) => parse(route) === path);',
    '}',
    '',
    'export class Router {',
    '  private readonly routes: string[] = [];',
    '  add(route: string): void {',
    '    this.routes.push(route);',
    '  }',
    '  handle(path: string): string | undefined {',
    '    return matchRoute(path, this.routes);',
    '  }',
    '}',
  ].join('\n'),
  'src/url.ts':
    'export function parse(url: string): string {\n  return new URL(url, "http://x").pathname;\n}\n',
  'lib/cache.py':
    'class LruCache:\n    """Least recently used cache with a size limit."""\n\n    def evict(self):\n        pass\n\n\ndef make_cache(size):\n    return LruCache()\n',
  'cmd/server.go':
    'package main\n\n// Serve starts the HTTP server.\nfunc Serve(addr string) error {\n\treturn nil\n}\n',
  'docs/guide.md': '# Guide\n\nIntro text.\n\n## Routing\n\nHow routes are matched against request paths.\n',
  'notes.txt': 'plain text file about deployment\n',
  'test/router.test.ts':
    "import { matchRoute } from '../src/router.js';\ntest('matchRoute matches a route', () => matchRoute('/a', ['/a']));\n",
  'ignored/secret.ts': 'export const hidden = 1;\n',
  '.gitignore': 'ignored/\n',
  'node_modules/dep/index.js': 'module.exports = 1;\n',
  'image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
  'app.min.js': 'var a=1;',
};

async function writeTree(dir: string, layout: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(layout)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

/** An index of a temp dir holding `layout`, for one test; the dir is removed after. */
async function withIndex(layout: Record<string, string>, use: (index: CodeIndex) => void): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mcpkit-search-tree-'));
  try {
    await writeTree(dir, layout);
    use(await CodeIndex.build(dir, { saved: false }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'mcpkit-search-'));
  await writeTree(root, files);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('walk', () => {
  it('honours .gitignore and skips dependencies, binaries and generated files', async () => {
    expect((await walk(root)).map((f) => f.path)).toEqual([
      '.gitignore',
      'cmd/server.go',
      'docs/guide.md',
      'lib/cache.py',
      'notes.txt',
      'src/router.ts',
      'src/url.ts',
      'test/router.test.ts',
    ]);
  });
});

describe('chunkFile', () => {
  it('cuts TypeScript at functions, classes and methods, keeping doc comments with their unit', async () => {
    const chunks = await chunkFile('src/router.ts', files['src/router.ts'] as string);
    expect(chunks.map((c) => [c.startLine, c.endLine, c.symbols])).toEqual([
      [1, 6, ['matchRoute']],
      [8, 16, ['Router', 'routes', 'add', 'handle']],
    ]);
    expect(chunks[0]?.content).toContain('/** Matches a request path');
  });

  it('chunks files of different languages concurrently as it does one by one (one shared parser)', async () => {
    const paths = ['src/router.ts', 'lib/cache.py', 'cmd/server.go', 'src/url.ts'];
    const one = [];
    for (const path of paths) one.push(await chunkFile(path, files[path] as string));
    const all = await Promise.all(paths.map((path) => chunkFile(path, files[path] as string)));
    expect(all).toEqual(one);
  });

  it('keeps the name of a class too long for one chunk on its first piece', async () => {
    const methods = Array.from(
      { length: 12 },
      (_, i) => `  m${i}() {\n    const a = ${i};\n    const b = a + 1;\n    return b;\n  }`,
    );
    const text = `export class KeywordContext {\n  field = 1;\n${methods.join('\n')}\n}\n`;
    const chunks = await chunkFile('src/keyword.ts', text);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks[0]?.startLine).toBe(1);
    expect(chunks[0]?.symbols).toContain('KeywordContext');
  });

  it('knows Python, Go and Markdown sections', async () => {
    const py = await chunkFile('lib/cache.py', files['lib/cache.py'] as string);
    // A unit of three lines or fewer joins its neighbour.
    expect(py.map((c) => c.symbols)).toEqual([['LruCache', 'evict', 'make_cache']]);
    const go = await chunkFile('cmd/server.go', files['cmd/server.go'] as string);
    expect(go.at(-1)).toMatchObject({ symbols: ['Serve'], language: 'go', endLine: 6 });
    const md = await chunkFile('docs/guide.md', files['docs/guide.md'] as string);
    expect(md.map((c) => [c.startLine, c.symbols])).toEqual([
      [1, ['Guide']],
      [5, ['Routing']],
    ]);
  });
});

describe('CodeIndex', () => {
  let index: CodeIndex;
  beforeAll(async () => {
    index = await CodeIndex.build(root);
  });

  it('finds the definition of a queried symbol first, and code by what it does', () => {
    expect(index.search('matchRoute', 3)[0]?.chunk).toMatchObject({ path: 'src/router.ts', startLine: 1 });
    expect(index.search('least recently used cache', 1)[0]?.chunk.path).toBe('lib/cache.py');
    expect(index.search('start the http server', 1)[0]?.chunk.path).toBe('cmd/server.go');
  });

  it('puts tests below the code they test unless tests are asked for', () => {
    const hits = index.search('matchRoute matches a route', 5).map((h) => h.chunk.path);
    expect(hits.indexOf('src/router.ts')).toBeLessThan(hits.indexOf('test/router.test.ts'));
    expect(index.search('tests for matchRoute', 1)[0]?.chunk.path).toBe('test/router.test.ts');
  });

  it('learns vectors in the background: bm25 at once, semantic once they are there, for derived indexes too', async () => {
    const early = await CodeIndex.build(root, { saved: false, vectors: 'background' });
    const derived = await early.withFiles(['notes.txt']);
    expect(early.search('least recently used cache', 1, 'bm25')[0]?.chunk.path).toBe('lib/cache.py');
    await early.vectorsReady();
    expect(early.hasVectors).toBe(true);
    expect(derived.hasVectors).toBe(true);
    expect(derived.search('least recently used cache', 1, 'semantic')[0]?.chunk.path).toBe('lib/cache.py');
    const none = await CodeIndex.build(root, { saved: false, vectors: 'none' });
    expect(none.hasVectors).toBe(false);
  });

  it('finds related chunks and resolves a line to its chunk', () => {
    const chunk = index.chunkAt('src/router.ts', 13);
    expect(chunk).toMatchObject({ startLine: 8, endLine: 16 });
    const related = index.findRelated(chunk as NonNullable<typeof chunk>, 3);
    expect(related.map((h) => h.chunk.path)).toContain('test/router.test.ts');
    expect(related.some((h) => h.chunk === chunk)).toBe(false);
    expect(index.chunkAt('src/router.ts', 500)).toBeUndefined();
  });

  it('formats results as numbered path:lines with a score and the code fenced', () => {
    const text = formatResults("Search results for: 'matchRoute' (mode=bm25)", index.search('matchRoute', 1));
    expect(text).toBe(
      [
        "Search results for: 'matchRoute' (mode=bm25)",
        '',
        '1. src/router.ts:1-6 (score=1.000)',
        '```typescript',
        (files['src/router.ts'] as string).split('\n').slice(0, 6).join('\n'),
        '```',
      ].join('\n'),
    );
  });

  it('shows the same score in text and JSON: relative to the best hit of the answer', () => {
    const hits = index.search('route', 3);
    expect(hits.length).toBe(3);
    const shown = [...formatResults('h', hits).matchAll(/\(score=([\d.]+)\)/g)].map((m) => Number(m[1]));
    const json = resultsJson('route', hits);
    expect(json.results.map((r) => r.score)).toEqual(shown);
    expect(shown[0]).toBe(1);
    expect(json.results[1]?.score).toBe(
      Math.round(((hits[1]?.score ?? 0) / (hits[0]?.score ?? 1)) * 1000) / 1000,
    );
    expect(json.results[0]).toMatchObject({ path: hits[0]?.chunk.path, startLine: hits[0]?.chunk.startLine });
  });

  it('leaves out hits too weak to show (score 0.000): a data file is no answer to a name', async () => {
    const layout = {
      'src/config.js': 'export function parseConfig(text) {\n  return JSON.parse(text);\n}\n',
      'memory.jsonl': '{"type":"entity","name":"x"}\n',
      '.mcp.json': '{"mcpServers":{}}\n',
    };
    await withIndex(layout, (built) => {
      expect(built.search('parseConfig', 5, 'hybrid').map((h) => h.chunk.path)).toEqual(['src/config.js']);
    });
  });

  it("ranks a package's TypeScript source above its build output, and code above prose", async () => {
    const compiled = 'export function refineSchema(check) {\n  return check;\n}\n';
    const layout = {
      'src/v4/refine.ts':
        'export function refineSchema(check: (v: unknown) => boolean) {\n  return check;\n}\n',
      'v4/refine.js': compiled,
      'v4/refine.cjs': compiled,
      'v4/refine.d.ts': 'export declare function refineSchema(check: (v: unknown) => boolean): unknown;\n',
      'README.md': '# refineSchema\n\nUse refineSchema to refine a schema with a check.\n',
    };
    await withIndex(layout, (built) => {
      const order = (query: string) => [...new Set(built.search(query, 10, 'bm25').map((h) => h.chunk.path))];
      expect(order('refineSchema')[0]).toBe('src/v4/refine.ts');
      const prose = order('refine a schema with a check');
      expect(prose[0]).toBe('src/v4/refine.ts');
      expect(prose.indexOf('README.md')).toBeGreaterThan(prose.indexOf('v4/refine.js'));
      // Asking for docs lifts the prose penalty.
      expect(order('readme: refine a schema with a check').indexOf('README.md')).toBeLessThan(
        prose.indexOf('README.md'),
      );
      // Build output is cut in line windows, unparsed: it defines no symbols of its own.
      expect(built.chunkAt('src/v4/refine.ts', 1)?.symbols).toEqual(['refineSchema']);
      expect(built.chunkAt('v4/refine.js', 1)?.symbols).toEqual([]);
      expect(built.chunkAt('v4/refine.d.ts', 1)?.symbols).toEqual([]);
    });
  });

  it('finds `$Name` for a query of `Name`; an older vN/ API, compat code and examples rank below the current one', async () => {
    const layout = {
      'src/v3/core.ts': 'export class ParseStatus {\n  dirty() {\n    return 1;\n  }\n}\n',
      'src/v4/core.ts': 'export class $ParseStatus {\n  dirty() {\n    return 2;\n  }\n}\n',
      'src/v4/compat.ts': 'export class ParseStatus {\n  dirty() {\n    return 3;\n  }\n}\n',
      'examples/status.ts': 'export class ParseStatus {\n  dirty() {\n    return 4;\n  }\n}\n',
    };
    await withIndex(layout, (built) => {
      const order = (query: string, ranking = {}) =>
        built.search(query, 3, 'bm25', ranking).map((h) => h.chunk.path);
      expect(order('ParseStatus')[0]).toBe('src/v4/core.ts');
      expect(order('ParseStatus', { legacy: 1 })[0]).not.toBe('src/v4/core.ts');
      expect(order('ParseStatus', { examples: 1 })[0]).toBe('examples/status.ts');
      expect(order('example of ParseStatus')[0]).toBe('examples/status.ts');
      // Asking for the old API by name lifts the penalty.
      expect(order('v3 ParseStatus')[0]).toBe('src/v3/core.ts');
    });
  });

  it('indexes dist/ of a package that ships only built code, with a warning, and skips it otherwise', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcpkit-search-dist-'));
    try {
      await writeTree(dir, {
        'README.md': '# pkg\n',
        'dist/index.js': 'export function throttleCalls(fn) {\n  return fn;\n}\n',
      });
      const warnings: string[] = [];
      const built = await CodeIndex.build(dir, { saved: false, onWarning: (w) => warnings.push(w) });
      expect(built.search('throttleCalls', 1)[0]?.chunk.path).toBe('dist/index.js');
      expect(warnings).toEqual([`${dir} has no source code outside dist/, build/ or out/; indexing those`]);
      await writeTree(dir, {
        'src/index.ts': 'export function throttleCalls(fn: () => void) {\n  return fn;\n}\n',
      });
      const withSource = await CodeIndex.build(dir, { saved: false });
      expect(withSource.search('throttleCalls', 5).map((h) => h.chunk.path)).toEqual(['src/index.ts']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a file that changes while the index is live is chunked as a fresh build chunks it', () => {
  const compiled = 'export function refineSchema(check) {\n  return check;\n}\n';
  const source = 'export function refineSchema(check: (v: unknown) => boolean) {\n  return check;\n}\n';
  // Each case: the tree at start, the files written (null: deleted) while the index is live.
  const cases: [string, Record<string, string>, Record<string, string | null>][] = [
    [
      'a file over 1 MiB in bytes (fewer characters than that)',
      { 'src/a.ts': source },
      { 'src/big.ts': `// ${'é'.repeat(600_000)}\nexport const big = 1;\n` },
    ],
    ['an empty file', { 'src/a.ts': source }, { 'notes.txt': '' }],
    [
      'build output saved beside its TypeScript source',
      { 'src/refine.ts': source },
      { 'src/refine.js': compiled },
    ],
    [
      'a TypeScript source saved beside build output already indexed',
      { 'src/refine.js': compiled, 'src/other.ts': 'export const other = 1;\n' },
      { 'src/refine.ts': source },
    ],
    [
      'a file under a .gitignored directory',
      { '.gitignore': 'gen/\n', 'src/a.ts': source },
      { 'gen/out.ts': source },
    ],
    ['a generated file (minified)', { 'src/a.ts': source }, { 'src/a.min.js': compiled }],
    [
      'build output of a package that ships only dist/',
      { 'README.md': '# pkg\n', 'dist/index.js': compiled },
      { 'dist/index.js': compiled.replace('refineSchema', 'throttleCalls') },
    ],
    ['a deleted file', { 'src/a.ts': source, 'src/b.ts': source }, { 'src/b.ts': null }],
  ];

  it.each(cases)('%s', async (_name, before, changes) => {
    const dir = await mkdtemp(join(tmpdir(), 'mcpkit-search-live-'));
    try {
      await writeTree(dir, before);
      const live = await CodeIndex.build(dir, { saved: false, vectors: 'none' });
      for (const [path, content] of Object.entries(changes))
        if (content === null) await rm(join(dir, path));
        else await writeTree(dir, { [path]: content });
      const changed = await live.withFiles(Object.keys(changes));
      const fresh = await CodeIndex.build(dir, { saved: false, vectors: 'none' });
      // The same chunks in the same order (ties in ranking fall the same way), from the same files.
      expect(changed.chunks).toEqual(fresh.chunks);
      expect(changed.files).toBe(fresh.files);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('semantic mode with a word in most chunks', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcpkit-semantic-'));
    await writeFile(join(dir, 'command.ts'), 'export class Command {\n  run(): void {}\n}\n');
    for (const name of ['help', 'version', 'init', 'build', 'serve'])
      await writeFile(
        join(dir, `${name}.ts`),
        `import { Command } from './command.js';\nexport const ${name} = new Command(); // ${name} command\n`,
      );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('answers a one-word symbol query the vectors leave out (it is in most chunks) instead of nothing', async () => {
    const index = await CodeIndex.build(dir, { saved: false });
    expect(index.hasVectors).toBe(true);
    const hits = index.search('Command', 5, 'semantic');
    expect(hits[0]?.chunk.path).toBe('command.ts');
  });
});
