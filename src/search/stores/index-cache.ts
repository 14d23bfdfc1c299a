// Where a search server keeps a repository's saved index when nobody ran `mcpkit index` there: the user's cache
// directory, keyed by the repository's real path, so the tree stays clean (or read-only) and a restart loads instead
// of rebuilding.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { userCacheDir } from '../../config/index.js';
import { INDEX_FILE } from './saved-index.js';

/** The cache file of a repository's index; undefined when the environment names no cache directory. */
export function cachedIndexFile(
  root: string,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const dir = userCacheDir(env);
  if (!dir) return undefined;
  let real = root;
  try {
    real = realpathSync(root);
  } catch {
    // A root that cannot be resolved is keyed as given.
  }
  const key = createHash('sha256').update(real).digest('hex').slice(0, 16);
  return join(dir, 'search', `${basename(real) || 'root'}-${key}.bin`);
}

/**
 * Which saved index a start reads: the repository's own (`mcpkit index`) or the cache's, whichever was written
 * last; undefined when neither exists.
 */
export async function newestSavedIndex(
  root: string,
  cacheFile: string | undefined,
): Promise<string | undefined> {
  const candidates = [join(root, INDEX_FILE), ...(cacheFile ? [cacheFile] : [])];
  let best: { file: string; mtimeMs: number } | undefined;
  for (const file of candidates) {
    const info = await stat(file).catch(() => undefined);
    if (info && (!best || info.mtimeMs > best.mtimeMs)) best = { file, mtimeMs: info.mtimeMs };
  }
  return best?.file;
}
