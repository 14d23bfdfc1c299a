import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { McpkitError } from '../../errors/index.js';

/**
 * Checks that `root` is a directory to search: a missing path or a file is an INVALID_ARGUMENT McpkitError (the
 * CLI's exit 2) naming the path and what to do, before anything reads, writes or serves. The one check of every
 * entry point that takes a repository (`CodeIndex.build`/`open`, `indexIntoStore`, the search server's CLI).
 */
export async function checkSearchRoot(root: string): Promise<void> {
  const info = await stat(root).catch((cause: NodeJS.ErrnoException) => {
    if (cause.code === 'ENOENT' || cause.code === 'ENOTDIR') return undefined;
    throw new McpkitError('IO', `cannot read ${root}: ${cause.message}`, { cause, file: root });
  });
  if (!info)
    throw new McpkitError(
      'INVALID_ARGUMENT',
      `${root} does not exist: give the directory of the repository to search`,
      { file: root },
    );
  if (!info.isDirectory())
    throw new McpkitError(
      'INVALID_ARGUMENT',
      `${root} is not a directory: give the directory of the repository to search (such as ${dirname(root)})`,
      { file: root },
    );
}
