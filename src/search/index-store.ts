import { lstat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { McpkitError } from '../errors/index.js';
import { writeFileAtomic } from '../internal/text-file.js';
import type { Chunk } from './chunker.js';
import { repoFiles } from './repo-file.js';

/** Where `mcpkit index` saves a repository's index, relative to its root. */
export const INDEX_FILE = '.mcpkit/search-index.json';
/** The largest saved index read: about the most V8 holds as one string. */
const MAX_INDEX_BYTES = 500 * 1024 * 1024;
/** Bumped whenever chunks would come out differently: an index saved by another version is rebuilt. */
export const CHUNKER_VERSION = 3;

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
 * Reads the saved index of `root`. Undefined when there is none (or it is not a regular file inside the
 * repository, or over 500 MiB); a reason string when there is one that cannot be used (another chunker version,
 * or not an index at all).
 */
export async function loadSavedIndex(root: string): Promise<SavedFiles | string | undefined> {
  const file = join(root, INDEX_FILE);
  // Read as any file of the repository is: a FIFO or a link to /dev/zero in its place must not hold the build.
  const bytes = await repoFiles(root).read(file, { maxBytes: MAX_INDEX_BYTES, follow: true });
  if (bytes === undefined) return undefined;
  const text = bytes.toString('utf8');
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
  await refuseLinks(root, file);
  await writeFileAtomic(file, JSON.stringify(saved));
  await ignoreEverythingIn(dirname(file));
  return file;
}

/**
 * The index is written inside the repository only: a `.mcpkit` or index file that is a symlink (a repository can
 * ship one, to `~/.bashrc` say) would have the write land wherever it points.
 */
async function refuseLinks(root: string, file: string): Promise<void> {
  for (const path of [join(root, dirname(INDEX_FILE)), file]) {
    if ((await lstat(path).catch(() => undefined))?.isSymbolicLink())
      throw new McpkitError(
        'IO',
        `cannot write ${file}: ${path} is a symbolic link and the index is written only inside the repository; remove the link and index again`,
        { file: path },
      );
  }
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
