import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { McpkitError } from '../errors/index.js';
import { readTextIfExists, writeFileAtomic } from '../internal/text-file.js';
import type { Chunk } from './chunker.js';

/** Where `mcpkit index` saves a repository's index, relative to its root. */
export const INDEX_FILE = '.mcpkit/search-index.json';
/** Bumped whenever chunks would come out differently: an index saved by another version is rebuilt. */
export const CHUNKER_VERSION = 2;

/** A file as the index saw it: size and modification time decide whether its chunks are still good. */
export type FileStamp = { size: number; mtimeMs: number };

interface SavedIndex {
  format: 'mcpkit-search-index';
  version: 1;
  chunker: number;
  files: Record<string, [size: number, mtimeMs: number]>;
  chunks: Chunk[];
}

/** What a saved index gives: chunks per file, with the stamp they were made from. */
export interface SavedFiles {
  files: Map<string, { stamp: FileStamp; chunks: Chunk[] }>;
}

/**
 * Reads the saved index of `root`. Undefined when there is none; a reason string when there is one that
 * cannot be used (another chunker version, or not an index at all).
 */
export async function loadSavedIndex(root: string): Promise<SavedFiles | string | undefined> {
  const file = join(root, INDEX_FILE);
  const text = await readTextIfExists(file).catch(() => undefined);
  if (text === undefined) return undefined;
  let saved: SavedIndex;
  try {
    saved = JSON.parse(text) as SavedIndex;
  } catch {
    return `${file} is not valid JSON`;
  }
  if (saved?.format !== 'mcpkit-search-index' || saved.version !== 1)
    return `${file} is not an mcpkit search index`;
  if (saved.chunker !== CHUNKER_VERSION) return `${file} was written by another version of the chunker`;
  const files = new Map<string, { stamp: FileStamp; chunks: Chunk[] }>();
  for (const [path, [size, mtimeMs]] of Object.entries(saved.files))
    files.set(path, { stamp: { size, mtimeMs }, chunks: [] });
  for (const chunk of saved.chunks) files.get(chunk.path)?.chunks.push(chunk);
  return { files };
}

/**
 * Saves an index (atomically) and returns the file written. The first save also writes `.mcpkit/.gitignore`
 * holding `*`, so the index (megabytes, machine-specific mtimes) is never committed; a `.gitignore` already
 * there is the user's and is left as it is.
 */
export async function saveIndex(
  root: string,
  stamps: ReadonlyMap<string, FileStamp>,
  chunks: readonly Chunk[],
): Promise<string> {
  const file = join(root, INDEX_FILE);
  const saved: SavedIndex = {
    format: 'mcpkit-search-index',
    version: 1,
    chunker: CHUNKER_VERSION,
    files: Object.fromEntries([...stamps].map(([path, { size, mtimeMs }]) => [path, [size, mtimeMs]])),
    chunks: [...chunks],
  };
  await writeFileAtomic(file, JSON.stringify(saved));
  await ignoreEverythingIn(dirname(file));
  return file;
}

/** Writes `<dir>/.gitignore` with `*` unless one exists (`wx`: never over the user's own). */
async function ignoreEverythingIn(dir: string): Promise<void> {
  const file = join(dir, '.gitignore');
  try {
    await writeFile(file, '*\n', { flag: 'wx' });
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw new McpkitError('IO', `cannot write ${file}: ${(cause as Error).message}`, { cause, file });
  }
}
