import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mapConcurrent } from '../internal/concurrency.js';
import { type Chunk, chunkFile } from './chunker.js';
import type { FileStamp, SavedFiles } from './index-store.js';
import { looksBinary, type WalkedFile } from './walk.js';

/**
 * The one way a walked file becomes chunks, at build and when it changes while the index is live: read as
 * UTF-8, left out when it cannot be read or is binary, cut at syntax unless it is build output of an indexed
 * TypeScript source (line windows: it ranks low anyway, and a parse costs zod 40% of its index time).
 */
export async function chunksOf(
  root: string,
  file: WalkedFile,
  buildOutput: boolean,
): Promise<Chunk[] | undefined> {
  const text = await readFile(join(root, file.path), 'utf8').catch(() => undefined);
  if (text === undefined || looksBinary(text)) return undefined;
  return chunkFile(file.path, text, { syntax: !buildOutput });
}

/** The size and mtime a file's chunks are made from (what decides whether saved chunks are still good). */
export const stampOf = (file: WalkedFile): FileStamp => ({ size: file.size, mtimeMs: file.mtimeMs });

/** What {@link chunkAll} made: chunks in file order, the stamp of every file indexed, how many were chunked. */
export interface ChunkedFiles {
  chunks: Chunk[];
  stamps: Map<string, FileStamp>;
  /** Files chunked now (not taken from the saved index). */
  rechunked: number;
}

/** Files read and chunked at once while indexing: reads overlap the chunking of files already read. */
const CONCURRENCY = 64;

/**
 * Chunks every walked file ({@link chunksOf}), taking a file's chunks from the saved index instead when its
 * size and mtime still match.
 */
export async function chunkAll(
  root: string,
  files: readonly WalkedFile[],
  twins: ReadonlySet<string>,
  options: {
    saved?: SavedFiles['files'];
    onProgress?: (done: number, total: number, chunks: number) => void;
  },
): Promise<ChunkedFiles> {
  let done = 0;
  let count = 0;
  let rechunked = 0;
  const perFile = await mapConcurrent(files, CONCURRENCY, async (file) => {
    const old = options.saved?.get(file.path);
    let chunks: Chunk[] | undefined;
    if (old && old.stamp.size === file.size && old.stamp.mtimeMs === file.mtimeMs) chunks = old.chunks;
    else {
      chunks = await chunksOf(root, file, twins.has(file.path));
      if (chunks) rechunked++;
    }
    count += chunks?.length ?? 0;
    options.onProgress?.(++done, files.length, count);
    return chunks;
  });
  const chunks: Chunk[] = [];
  const stamps = new Map<string, FileStamp>();
  for (const [i, file] of files.entries()) {
    const made = perFile[i];
    if (!made) continue;
    chunks.push(...made);
    stamps.set(file.path, stampOf(file));
  }
  return { chunks, stamps, rechunked };
}
