import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, realpathSync } from 'node:fs';
import { type FileHandle, open, readlink, realpath } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';

/** Options for {@link RepoFiles.read}. */
export interface RepoReadOptions {
  /** A larger file is not read at all. */
  maxBytes: number;
  /** Read only the first bytes (a sniff); default the whole file. */
  head?: number;
  /** Follow a symlink at the path itself (default false); its target must still lie inside the root. */
  follow?: boolean;
}

/** How the files of one repository are read: see {@link repoFiles}. */
export interface RepoFiles {
  /** The root as given. */
  readonly root: string;
  /** The bytes of the regular file at `full` (a path under the root), or undefined: see {@link repoFiles}. */
  read(full: string, options: RepoReadOptions): Promise<Buffer | undefined>;
  /**
   * {@link read}, synchronously, with the same checks: for the few files a search answer shows (a chunk's code is
   * read from its file when shown, not held in memory).
   */
  readSync(full: string, options: RepoReadOptions): Buffer | undefined;
}

// Absent on Windows: there the checks below rest on the handle's stat and the realpath alone.
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const NON_BLOCKING = constants.O_NONBLOCK ?? 0;

/**
 * The one way the search reads a repository's files — code, `.gitignore`s, the saved index — for a repository
 * nobody vouches for (a `git pull` brings whatever a branch holds). A file is read only when, through one open
 * handle: it is a regular file (a device or FIFO is opened non-blocking and never read, so `/dev/zero` or a FIFO
 * nobody writes cannot hold or flood the reader), it is at most `maxBytes` long, its path is not itself a symlink
 * (unless `follow`), and its real path — the kernel's name for the open handle, so no directory link swapped
 * in between checks can fool it — lies inside the root's real path, the rule a tool's `repo` must pass too.
 * Anything else, and any error, is undefined: the file is simply not there for the index.
 */
export function repoFiles(root: string): RepoFiles {
  let rootReal: Promise<string> | undefined;
  let rootRealNow: string | undefined;
  return {
    root,
    async read(full, options) {
      let handle: FileHandle;
      try {
        handle = await open(full, constants.O_RDONLY | NON_BLOCKING | (options.follow ? 0 : NO_FOLLOW));
      } catch {
        return undefined;
      }
      try {
        const info = await handle.stat();
        if (!info.isFile() || info.size > options.maxBytes) return undefined;
        rootReal ??= realpath(root);
        if (!isInside(await realPathOf(handle, full), await rootReal)) return undefined;
        return await readUpTo(handle, Math.min(info.size, options.head ?? info.size));
      } catch {
        return undefined;
      } finally {
        await handle.close().catch(() => undefined);
      }
    },
    readSync(full, options) {
      let fd: number;
      try {
        fd = openSync(full, constants.O_RDONLY | NON_BLOCKING | (options.follow ? 0 : NO_FOLLOW));
      } catch {
        return undefined;
      }
      try {
        const info = fstatSync(fd);
        if (!info.isFile() || info.size > options.maxBytes) return undefined;
        const named = process.platform === 'linux' ? readlinkSync(`/proc/self/fd/${fd}`) : realpathSync(full);
        rootRealNow ??= realpathSync(root);
        if (!isInside(named, rootRealNow)) return undefined;
        const length = Math.min(info.size, options.head ?? info.size);
        const buffer = Buffer.alloc(length);
        let filled = 0;
        while (filled < length) {
          const read = readSync(fd, buffer, filled, length - filled, filled);
          if (read === 0) break;
          filled += read;
        }
        return buffer.subarray(0, filled);
      } catch {
        return undefined;
      } finally {
        closeSync(fd);
      }
    },
  };
}

/** Where an open file really is: Linux names the handle itself in /proc; elsewhere the path is resolved again. */
async function realPathOf(handle: FileHandle, full: string): Promise<string> {
  if (process.platform === 'linux') {
    const named = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    if (named?.startsWith('/')) return named;
  }
  return realpath(full);
}

/** At most `length` bytes from the start (fewer if the file shrank since its stat: the size stamped is the cap). */
async function readUpTo(handle: FileHandle, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Whether `path` is `base` or lies below it (both absolute, symlinks already resolved). */
export function isInside(path: string, base: string): boolean {
  const rel = relative(base, path);
  // `..x` is a name inside; only `..` itself or `../…` leads out.
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
