// The search server over a repository it cannot trust (a `git pull` brings whatever the branch holds): symlinks
// out of the tree, devices and FIFOs, before the start and added while it runs. None may be read or returned.
import { spawnSync } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdir, mkdtemp, open, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSearchServer, type SearchServer } from '../../src/search/server/search-server.js';
import { eventually } from '../helpers/eventually.js';
import { textOf } from './fixtures.js';

/** Words that exist only outside the repository: an answer holding one is an escape. */
const OUTSIDE_WORDS = ['zanzibarOutsideDir', 'quokkaOutsideFile'];

let base: string;
let repo: string;
let outside: string;
let server: SearchServer;
let client: Client;
const fifos: string[] = [];
/** Why FIFOs are left out of this run (no real `mkfifo` command here), shown in the test names; or undefined. */
const noFifo = spawnSync('mkfifo', ['--version']).error ? 'FIFO cases skipped: no mkfifo command' : undefined;
const fifoNote = noFifo ? ` (${noFifo})` : '';

/** A FIFO made by the real `mkfifo` command. */
function mkfifo(path: string): void {
  const made = spawnSync('mkfifo', [path]);
  if (made.status !== 0) throw new Error(`mkfifo ${path}: ${made.stderr.toString().trim()}`);
  fifos.push(path);
}

/** The links and special files a hostile tree holds, under `dir` (inside the repository). */
async function plantHostile(dir: string): Promise<void> {
  await mkdir(join(dir, 'zero-ignore'), { recursive: true });
  await mkdir(join(dir, 'fifo-ignore'), { recursive: true });
  await symlink(outside, join(dir, 'linked-dir'));
  await symlink(join(outside, 'file.ts'), join(dir, 'linked-file.ts'));
  await symlink('/dev/zero', join(dir, 'zero.ts'));
  // A .gitignore is read for every path below it: as a link to /dev/zero it would be read without end.
  await symlink('/dev/zero', join(dir, 'zero-ignore/.gitignore'));
  await writeFile(join(dir, 'zero-ignore/kept.ts'), 'export const keptBesideZero = 1;\n');
  if (!noFifo) {
    mkfifo(join(dir, 'pipe.ts'));
    // Opening a FIFO for reading blocks until a writer comes: a .gitignore FIFO would stall the walk.
    mkfifo(join(dir, 'fifo-ignore/.gitignore'));
    await writeFile(join(dir, 'fifo-ignore/kept.ts'), 'export const keptBesideFifo = 1;\n');
  }
}

const search = async (query: string) =>
  textOf(await client.callTool({ name: 'search', arguments: { query } }));

/** Every answer and the index itself are free of the outside words. */
async function expectNoEscape(): Promise<void> {
  for (const word of OUTSIDE_WORDS) expect(await search(word)).not.toMatch(/linked-|outside/);
  const index = await server.ready();
  expect(index.chunks.filter((c) => OUTSIDE_WORDS.some((w) => c.content.includes(w)))).toEqual([]);
  expect(index.chunks.filter((c) => c.content.includes('\0'))).toEqual([]);
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'mcpkit-search-untrusted-'));
  repo = join(base, 'repo');
  outside = join(base, 'outside');
  await mkdir(join(repo, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(outside, 'secret.ts'), `export const key = '${OUTSIDE_WORDS[0]}';\n`);
  await writeFile(join(outside, 'file.ts'), `export const key = '${OUTSIDE_WORDS[1]}';\n`);
  await writeFile(join(repo, 'src/real.ts'), 'export function realCodeHere() {\n  return 1;\n}\n');
  await plantHostile(join(repo, 'before'));
  server = createSearchServer({ root: repo, env: {}, vectors: 'none', log: () => undefined });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await (await server.factory({} as Parameters<McpServerFactory>[0])).connect(serverSide);
  client = new Client({ name: 'untrusted-test', version: '1' });
  await client.connect(clientSide);
});

afterAll(async () => {
  // A reader stuck opening a FIFO (the old code) is released by a writer: no thread of libuv's pool stays blocked.
  for (const fifo of fifos)
    await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).then(
      (handle) => handle.close(),
      () => undefined,
    );
  await client?.close();
  await server?.close();
  await rm(base, { recursive: true, force: true });
});

describe('mcpkit search-server over an untrusted repository', () => {
  it(`walks past links out of the tree, devices and FIFOs at the start, and indexes the real code${fifoNote}`, async () => {
    await server.ready();
    expect(await search('realCodeHere')).toContain('src/real.ts');
    expect(await search('keptBesideZero')).toContain('before/zero-ignore/kept.ts');
    if (!noFifo) expect(await search('keptBesideFifo')).toContain('before/fifo-ignore/kept.ts');
    await expectNoEscape();
  });

  it(`follows no link, device or FIFO added while it runs; a file saved after them is still seen${fifoNote}`, async () => {
    await server.ready();
    const rssBefore = process.memoryUsage().rss;
    await plantHostile(join(repo, 'after'));
    // Files written through the link after it was planted: a watcher that follows links would see them now.
    await writeFile(join(outside, 'late.ts'), `export const late = '${OUTSIDE_WORDS[0]}';\n`);
    await writeFile(join(repo, 'src/marker.ts'), 'export function markerAfterLinks() {\n  return 2;\n}\n');
    // A new directory's files are reported once it is watched, possibly after the marker: wait for them all.
    const expected: [string, string][] = [
      ['markerAfterLinks', 'src/marker.ts'],
      ['keptBesideZero', 'after/zero-ignore/kept.ts'],
      ...(noFifo ? [] : ([['keptBesideFifo', 'after/fifo-ignore/kept.ts']] as [string, string][])),
    ];
    for (const [word, path] of expected)
      await eventually(async () => ((await search(word)).includes(path) ? true : undefined));
    await expectNoEscape();
    // Reading /dev/zero costs half a GiB a time; nothing near that may be held.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(256 * 1024 * 1024);
  });

  it('still watches a root that is itself a symlink (links under it are not followed, the root is)', async () => {
    const linkedRoot = join(base, 'root-link');
    await symlink(repo, linkedRoot);
    const linked = createSearchServer({ root: linkedRoot, env: {}, vectors: 'none', log: () => undefined });
    try {
      await linked.ready();
      await writeFile(join(repo, 'src/through-root-link.ts'), 'export function seenThroughRootLink() {}\n');
      const index = await eventually(async () => {
        const current = await linked.ready();
        return current.hasFile('src/through-root-link.ts') ? current : undefined;
      });
      expect(index.search('seenThroughRootLink', 1)[0]?.chunk.path).toBe('src/through-root-link.ts');
      expect(index.chunks.filter((c) => OUTSIDE_WORDS.some((w) => c.content.includes(w)))).toEqual([]);
    } finally {
      await linked.close();
    }
  });
});
