// What the index makes of files it cannot trust: links out of the repository, devices, FIFOs, bytes posing as
// code under code extensions, text built to make the parser work without end.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkFile } from '../../src/search/chunks/chunker.js';
import { languageOf } from '../../src/search/chunks/languages.js';
import { CodeIndex } from '../../src/search/code-index/code-index.js';
import { repoFiles } from '../../src/search/files/repo-file.js';
import { looksBinary } from '../../src/search/files/text-sniff.js';
import { Bm25Index } from '../../src/search/lexical/bm25.js';
import { loadSavedIndex, saveIndex } from '../../src/search/stores/saved-index.js';

let base: string;
let repo: string;
let outside: string;
const noFifo = spawnSync('mkfifo', ['--version']).error ? ' (FIFO case skipped: no mkfifo command)' : '';
const fifos: string[] = [];

function mkfifo(path: string): void {
  const made = spawnSync('mkfifo', [path]);
  if (made.status !== 0) throw new Error(`mkfifo ${path}: ${made.stderr.toString().trim()}`);
  fifos.push(path);
}

/** Bytes 1-255 at random: binary without a single NUL. */
function nulFree(length: number): Buffer {
  const bytes = randomBytes(length);
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0) bytes[i] = 1;
  return bytes;
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'mcpkit-hostile-'));
  repo = join(base, 'repo');
  outside = join(base, 'outside');
  await mkdir(join(repo, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(outside, 'secret.ts'), 'export const secret = 1;\n');
  await writeFile(join(repo, 'src/real.ts'), 'export function realCode() {\n  return 1;\n}\n');
});

afterAll(async () => {
  for (const fifo of fifos)
    await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).then(
      (handle) => handle.close(),
      () => undefined,
    );
  await rm(base, { recursive: true, force: true });
});

describe('repoFiles: reading a file of an untrusted repository', () => {
  it('reads a regular file inside the root, and a link to one when asked to follow', async () => {
    await symlink('real.ts', join(repo, 'src/alias.ts'));
    const files = repoFiles(repo);
    const real = await readFile(join(repo, 'src/real.ts'));
    expect(await files.read(join(repo, 'src/real.ts'), { maxBytes: 1024 })).toEqual(real);
    expect(await files.read(join(repo, 'src/real.ts'), { maxBytes: 1024, head: 6 })).toEqual(
      real.subarray(0, 6),
    );
    expect(await files.read(join(repo, 'src/alias.ts'), { maxBytes: 1024, follow: true })).toEqual(real);
    expect(await files.read(join(repo, 'src/alias.ts'), { maxBytes: 1024 })).toBeUndefined();
    expect(await files.read(join(repo, 'src/real.ts'), { maxBytes: 4 })).toBeUndefined();
  });

  it(`reads nothing through a linked directory, a link out, a device or a FIFO${noFifo}`, async () => {
    await symlink(outside, join(repo, 'out-dir'));
    await symlink(join(outside, 'secret.ts'), join(repo, 'out-file.ts'));
    await symlink('/dev/zero', join(repo, 'zero.ts'));
    const files = repoFiles(repo);
    const read = (path: string) => files.read(join(repo, path), { maxBytes: 1024 * 1024, follow: true });
    // The path's last part is a regular file: only the real path of the open handle shows it is outside.
    expect(await read('out-dir/secret.ts')).toBeUndefined();
    expect(await read('out-file.ts')).toBeUndefined();
    expect(await read('zero.ts')).toBeUndefined();
    if (!noFifo) {
      mkfifo(join(repo, 'pipe.ts'));
      // Opening a FIFO nobody writes blocks a plain open for ever; this one answers at once.
      expect(await read('pipe.ts')).toBeUndefined();
    }
  });
});

describe('looksBinary', () => {
  it('calls NUL-free random bytes binary, and code, Latin-1 prose and coloured logs text', () => {
    for (let i = 0; i < 20; i++) expect(looksBinary(nulFree(4096))).toBe(true);
    expect(looksBinary(nulFree(4096).toString('utf8'))).toBe(true);
    expect(looksBinary(Buffer.from('export const a = 1;\n'))).toBe(false);
    // A source file saved in Latin-1: an accent in a comment here and there (French prose runs near 4%).
    const latin1 =
      '// Calcule la différence entre deux dates, en jours.\nfunction diff(a, b) {\n  return a - b;\n}\n';
    expect(looksBinary(Buffer.from(latin1.repeat(40), 'latin1'))).toBe(false);
    expect(looksBinary('\x1b[31merror\x1b[0m: failed\r\n\tat line 3\f\n')).toBe(false);
    expect(looksBinary('text\0')).toBe(true);
  });
});

describe('chunkFile under hostile text', () => {
  it('cuts a file of absurdly long lines in line windows without parsing it, and says so', async () => {
    const why: string[] = [];
    const line = 'x'.repeat(50_000);
    const chunks = await chunkFile('src/long.ts', `${line}\n${line}\n`, {
      onLineWindows: (w) => why.push(w),
    });
    expect(why).toEqual(['long lines']);
    expect(chunks.map((c) => [c.startLine, c.endLine])).toEqual([[1, 2]]);
  });

  it('stops cutting at syntax when a file is over its parse budget, and cuts it in line windows', async () => {
    const why: string[] = [];
    // 500,000 `{` on short lines: one flat error node with a child each, which alone took seconds to walk.
    const text = `${'{'.repeat(100)}\n`.repeat(5000);
    const started = performance.now();
    const chunks = await chunkFile('src/braces.ts', text, { onLineWindows: (w) => why.push(w) });
    expect(why).toEqual(['parse budget']);
    // 40-line windows over 5,001 lines (the last one empty), as text without a grammar is cut.
    expect(chunks).toHaveLength(126);
    expect(chunks.slice(0, 125).every((c) => c.symbols.length === 0 && c.endLine - c.startLine === 39)).toBe(
      true,
    );
    // The budget is 1 s of parse and cut; the rest is line windows. Generous for a loaded machine.
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it('tells a C++ header of a million blank lines from C at once (the sniff is linear)', () => {
    // A line-start `\s*` in the sniff scanned every following blank line from every line: 80,000 took 16 s.
    const text = `${' \n'.repeat(500_000)}class Sink {\n};\n`;
    const started = performance.now();
    expect(languageOf('sink.h', text).name).toBe('cpp');
    expect(languageOf('plain.h', '\n'.repeat(1_000_000)).name).toBe('c');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('keeps parsing ordinary code with a long line in it', async () => {
    const why: string[] = [];
    const text = `export const data = '${'a'.repeat(5000)}';\n${'export function f() {\n  return 1;\n}\n'.repeat(20)}`;
    const chunks = await chunkFile('src/data.ts', text, { onLineWindows: (w) => why.push(w) });
    expect(why).toEqual([]);
    expect(chunks.some((c) => c.symbols.includes('f'))).toBe(true);
  });
});

describe('CodeIndex.build over hostile content', () => {
  it('leaves NUL-free bytes and base64 blobs under code extensions out, counts them, and still indexes the real code', async () => {
    const root = join(base, 'bytes');
    await mkdir(join(root, 'src'), { recursive: true });
    for (const [i, ext] of ['ts', 'js', 'py', 'go', 'rs', 'java'].entries())
      await writeFile(join(root, 'src', `blob${i}.${ext}`), nulFree(64 * 1024));
    // Text, but machine-made: a base64 blob posing as a module (undici ships two such files).
    await writeFile(
      join(root, 'src/blob-wasm.js'),
      `module.exports = '${randomBytes(48 * 1024).toString('base64')}';\n`,
    );
    await writeFile(join(root, 'src/real.ts'), 'export function realCodeStays() {\n  return 1;\n}\n');
    const index = await CodeIndex.build(root, { saved: false, vectors: 'none' });
    expect(index.files).toBe(1);
    expect(index.report).toEqual({ notText: 6, longLines: 1, windowed: 0 });
    expect(index.search('realCodeStays', 1)[0]?.chunk.path).toBe('src/real.ts');
  });
});

describe('the saved index of an untrusted repository', () => {
  it('is not written through a linked .mcpkit or index file, nor read from a FIFO or device', async () => {
    const root = join(base, 'saved');
    const target = join(outside, 'bashrc');
    await writeFile(target, 'keep me\n');
    await mkdir(join(root, '.mcpkit'), { recursive: true });
    await symlink(target, join(root, '.mcpkit/search-index.bin'));
    await expect(
      saveIndex(root, { files: new Map(), chunks: [], bm25: new Bm25Index().parts() }),
    ).rejects.toThrow(/is a symbolic link/);
    expect(await readFile(target, 'utf8')).toBe('keep me\n');
    await rm(join(root, '.mcpkit'), { recursive: true });
    await symlink(outside, join(root, '.mcpkit'));
    await expect(
      saveIndex(root, { files: new Map(), chunks: [], bm25: new Bm25Index().parts() }),
    ).rejects.toThrow(/\.mcpkit is a symbolic link/);
    await rm(join(root, '.mcpkit'));
    await mkdir(join(root, '.mcpkit'));
    await symlink('/dev/zero', join(root, '.mcpkit/search-index.bin'));
    expect(await loadSavedIndex(root)).toBeUndefined();
    if (!noFifo) {
      await rm(join(root, '.mcpkit/search-index.bin'));
      mkfifo(join(root, '.mcpkit/search-index.bin'));
      expect(await loadSavedIndex(root)).toBeUndefined();
    }
  });
});
