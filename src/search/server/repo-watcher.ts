import { realpathSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { watch } from 'chokidar';

/** Changes seen within this long of each other are applied together. */
const SETTLE_MS = 100;

/** A running watch; `close` stops it and drops changes not yet applied. */
export interface RepoWatch {
  /** Settles once the initial scan is done: every change from then on is reported. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Watches a repository and reports the files added, changed or deleted (relative, with `/`) once they
 * settle, in one batch. Directories the index's walk skips are not watched at all (node_modules is large), nor
 * anything behind a symlink.
 */
export function watchRepo(
  dir: string,
  skipsDir: (name: string) => boolean,
  onChange: (paths: string[]) => void,
): RepoWatch {
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  // Links are not followed (below), the root's own included: a root that is a link (`~/work -> /data/work`) is
  // watched by its real path, or nothing under it would be. The paths reported stay relative, as the walk's.
  const real = (() => {
    try {
      return realpathSync(dir);
    } catch {
      return dir;
    }
  })();
  const watcher = watch(real, {
    ignoreInitial: true,
    // A link is reported as the link, never walked into: one to / or a home directory would otherwise have
    // every file behind it watched (and offered to the index, which refuses them: see walkOne).
    followSymlinks: false,
    ignored: (path: string) => relative(real, path).split(sep).some(skipsDir),
  });
  const changed = (path: string) => {
    pending.add(relative(real, path).split(sep).join('/'));
    clearTimeout(timer);
    timer = setTimeout(() => {
      const paths = [...pending];
      pending.clear();
      onChange(paths);
    }, SETTLE_MS);
  };
  // A directory made and filled at once (`mkdir -p a/b && echo > a/b/c.ts`, a checkout) can be filled before
  // the watch on it is set up: chokidar then misses what is inside, and under load it missed whole nested
  // directories (seen in the hardening run). So a new directory is watched explicitly, and what it already
  // holds is reported as added (the index applies its own rules to each path, links and skipped dirs
  // included).
  const addedDir = (path: string) => {
    if (path === real) return;
    watcher.add(path);
    void reportFiles(path);
  };
  // Regular files only, never through a link, never into a directory the walk skips (node_modules).
  const reportFiles = async (path: string): Promise<void> => {
    const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const where = join(path, entry.name);
      if (entry.isFile()) changed(where);
      else if (entry.isDirectory() && !skipsDir(entry.name)) await reportFiles(where);
    }
  };
  const ready = new Promise<void>((settle) => watcher.once('ready', () => settle()));
  watcher
    .on('addDir', addedDir)
    .on('add', changed)
    .on('change', changed)
    .on('unlink', changed)
    // A directory that vanishes or cannot be read mid-watch: the next change or a new build recovers.
    .on('error', () => undefined);
  return {
    ready,
    close: async () => {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}
