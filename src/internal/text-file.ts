import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { McpkitError } from '../errors/index.js';

/** Reads a UTF-8 file; undefined when it does not exist, an IO error naming the file otherwise. */
export async function readTextIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new McpkitError('IO', `cannot read ${file}: ${(cause as Error).message}`, { cause, file });
  }
}

/**
 * Writes `text` (or binary parts, in order) to `file` atomically: a temp file in the same directory, fsync, then rename over the
 * target. Readers see the old content or the new, never half a file. A symlinked target (dotfile managers
 * link `~/.claude.json` and friends) is resolved first so the link survives and the real file is updated;
 * the existing file's mode is kept (some of these files hold tokens and are 0600). `mode` forces one (and a
 * new directory 0700): the token store is always 0600.
 */
export async function writeFileAtomic(
  file: string,
  text: string | readonly Uint8Array[],
  options: { mode?: number } = {},
): Promise<void> {
  const target = await resolveTarget(file);
  const dir = dirname(target);
  await mkdir(dir, { recursive: true, ...(options.mode === undefined ? {} : { mode: 0o700 }) });
  const mode =
    options.mode ??
    (await stat(target).then(
      (s) => s.mode & 0o777,
      () => 0o644,
    ));
  const temp = join(dir, `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(temp, 'wx', mode);
    // Binary content comes in parts (a search index's arrays): written one after another, never joined in memory.
    if (typeof text === 'string') await handle.writeFile(text, 'utf8');
    else for (const part of text) await handle.write(part);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, target);
  } catch (cause) {
    await handle?.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw new McpkitError('IO', `cannot write ${file}: ${(cause as Error).message}`, { cause, file });
  }
}

async function resolveTarget(file: string): Promise<string> {
  try {
    return await realpath(file);
  } catch {
    // Missing file (the common case for a first write): write where we were told.
    return file;
  }
}
