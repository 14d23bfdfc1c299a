import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { usage } from './options.js';
import { authMode } from './serve-options.js';
import type { ServeFlags } from './serve-until-done.js';

// The gateway's flag values that only the file system or the token parser can judge, checked before anything
// binds or starts: a bad one is one line and exit 2, never a failure found after every upstream came up.

/** `--tokens FILE` (or MCPKIT_AUTH_TOKEN) read and checked the way serving will read it; a bad one is usage. */
export async function checkTokens(flags: ServeFlags): Promise<void> {
  if (flags.transport !== 'http' || authMode(flags) !== 'token') return;
  const { BearerTokens } = await import('../serve/bearer-tokens.js');
  try {
    if (flags.tokens === undefined)
      BearerTokens.single('env', process.env.MCPKIT_AUTH_TOKEN ?? '', 'MCPKIT_AUTH_TOKEN');
    else BearerTokens.fromFile(flags.tokens);
  } catch (error) {
    usage(`--tokens: ${(error as Error).message}`);
  }
}

/**
 * A file the gateway will write (`--audit`, `--tool-index`): not a directory, and under the nearest directory
 * that exists one it may write in (missing ones are made). Checked now, not at the first write.
 */
export async function checkWritable(flag: string, file: string): Promise<void> {
  const info = await stat(file).catch(() => undefined);
  if (info?.isDirectory()) usage(`${flag} ${file} is a directory; name a file in it`);
  let dir = dirname(file);
  for (;;) {
    const found = await stat(dir).catch((error: NodeJS.ErrnoException) => error);
    if (found instanceof Error) {
      if (found.code === 'ENOENT' && dirname(dir) !== dir) {
        dir = dirname(dir);
        continue;
      }
      return usage(`${flag}: cannot write ${file} (${found.code ?? found.message} at ${dir})`);
    }
    if (!found.isDirectory()) usage(`${flag}: cannot write ${file} (${dir} is not a directory)`);
    await access(dir, constants.W_OK).catch(() =>
      usage(`${flag}: cannot write ${file} (${dir} is not writable)`),
    );
    return;
  }
}
