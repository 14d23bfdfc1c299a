import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpkitError } from '../../errors/index.js';
import { count } from '../../internal/plural.js';
import { describeReport } from '../chunks/file-chunks.js';
import { type BuildOptions, CodeIndex } from '../code-index/code-index.js';
import { cachedIndexFile, newestSavedIndex } from '../stores/index-cache.js';
import { type CheckedUrl, cloneRepo } from './clone.js';
import { type RepoWatch, watchRepo } from './repo-watcher.js';

/** Options for {@link RepoCache}. */
export interface RepoCacheOptions {
  /** How each repository is indexed (model, vectors). */
  build: Pick<BuildOptions, 'model' | 'vectors'>;
  /** How many repositories stay indexed; the least recently used one goes first. */
  capacity: number;
  /** Follow file changes of local directories (default true). */
  watch?: boolean;
  /**
   * Save each local directory's index in the user's cache directory ({@link cachedIndexFile}) once built and after
   * changes, and start from it (or from the repository's own `mcpkit index` file, whichever is newer); default false.
   */
  saveIndex?: boolean;
  /** The environment git runs with for a clone. */
  env: Readonly<Record<string, string | undefined>>;
  log: (message: string) => void;
}

/** A repository in the cache: its index once complete, the index being built meanwhile, and how far it is. */
export interface CachedRepo {
  index: Promise<CodeIndex>;
  /** The index while it is built (searchable for the files indexed so far); undefined while a clone is fetched. */
  live?: CodeIndex;
  /** Settles once `live` is there (a clone fetched). */
  started: Promise<void>;
  progress: { done: number; total: number };
}

interface Entry extends CachedRepo {
  /** Where its index is saved, if it is. */
  saveTo?: string;
  watch?: RepoWatch;
  /** A save waiting for changes to settle. */
  saveTimer?: NodeJS.Timeout;
  /** Settles once the watcher (if any) is ready, or at once when the repository is not watched. */
  watching: Promise<void>;
  /** For a clone: deletes the checkout. */
  cleanup?: () => Promise<void>;
}

/**
 * The indexed repositories of a search server, least recently used first out: a local directory is indexed in
 * place and watched once built (changed files are chunked again); a clone is a shallow checkout in a temp dir,
 * deleted with its entry. Concurrent first requests for one repository share one build.
 */
export class RepoCache {
  // Insertion order is recency: a hit moves its entry to the end, the first one is evicted.
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: RepoCacheOptions) {}

  /**
   * The repository under `key` (a directory, or a clone URL's href with `clone` its checked URL), built on
   * first use and touched as most recently used.
   */
  get(key: string, clone?: CheckedUrl): CachedRepo {
    const known = this.entries.get(key);
    if (known) {
      this.entries.delete(key);
      this.entries.set(key, known);
      return known;
    }
    const entry = this.build(key, clone);
    this.entries.set(key, entry);
    while (this.entries.size > this.options.capacity)
      void this.evict(this.entries.keys().next().value as string);
    return entry;
  }

  /**
   * Settles when the repository is indexed and, for a watched directory, its watcher is ready: a file saved
   * from then on is seen. Does not touch the entry; rejects when it is not cached or its build failed.
   */
  async watched(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) throw new McpkitError('INVALID_ARGUMENT', `${key} is not in the search cache`);
    await entry.index;
    await entry.watching;
  }

  /** The repositories indexed now, least recently used first. */
  keys(): string[] {
    return [...this.entries.keys()];
  }

  /** Stops every watcher and deletes every clone. */
  async close(): Promise<void> {
    await Promise.all(this.keys().map((key) => this.evict(key)));
  }

  /**
   * Saves an entry's index `ms` from now unless another change comes first (vectors learned first, so they are
   * saved with it); nothing when nothing changed since it was loaded or saved.
   */
  private saveSoon(key: string, entry: Entry, ms: number): void {
    const file = entry.saveTo;
    if (!file) return;
    clearTimeout(entry.saveTimer);
    entry.saveTimer = setTimeout(() => {
      void entry.index
        .then(async (index) => {
          await index.vectorsReady();
          // An index stopped at its memory budget is not saved: the next start would take it for the whole tree.
          if (this.entries.get(key) !== entry || !index.unsaved || index.overBudget) return;
          await index.save(file);
        })
        .catch((error: Error) => this.options.log(`cannot save the index of ${key}: ${error.message}`));
    }, ms);
    entry.saveTimer.unref();
  }

  private async evict(key: string): Promise<void> {
    const entry = this.entries.get(key);
    this.entries.delete(key);
    clearTimeout(entry?.saveTimer);
    // Eviction runs unawaited from get(): a failure to stop a watcher or delete a clone is logged, never thrown.
    await Promise.all([entry?.watch?.close(), entry?.cleanup?.()]).catch((error: Error) =>
      this.options.log(`cannot release ${key}: ${error.message}`),
    );
  }

  private build(key: string, clone: CheckedUrl | undefined): Entry {
    const { log } = this.options;
    const progress = { done: 0, total: 0 };
    const started = performance.now();
    const budget = Number(this.options.env.MCPKIT_SEARCH_MEMORY_MB);
    const buildOptions: BuildOptions = {
      ...this.options.build,
      ...(budget > 0 ? { memoryLimitMb: budget } : {}),
      onWarning: log,
      onProgress: (done, total) => {
        progress.done = done;
        progress.total = total;
      },
    };
    let checkout: string | undefined;
    let began = (): void => undefined;
    const cacheFile = !clone && this.options.saveIndex ? cachedIndexFile(key, this.options.env) : undefined;
    const open = async (dir: string) => {
      const indexFile = cacheFile ? await newestSavedIndex(dir, cacheFile) : undefined;
      const build = CodeIndex.open(dir, { ...buildOptions, ...(indexFile ? { indexFile } : {}) });
      entry.live = build.index;
      began();
      return build.done;
    };
    const index = clone
      ? (async () => {
          checkout = await mkdtemp(join(tmpdir(), 'mcpkit-clone-'));
          await cloneRepo(clone, join(checkout, 'repo'), { env: this.options.env });
          return open(join(checkout, 'repo'));
        })()
      : Promise.resolve().then(() => open(key));
    let watching = (): void => undefined;
    const entry: Entry = {
      index,
      progress,
      started: new Promise<void>((settle) => {
        began = settle;
      }),
      watching: new Promise<void>((settle) => {
        watching = settle;
      }),
      ...(clone
        ? { cleanup: async () => void (checkout && (await rm(checkout, { recursive: true, force: true }))) }
        : {}),
    };
    index.then(
      (ready) => {
        const ms = Math.round(performance.now() - started);
        const guarded = describeReport(ready.report);
        const how = ready.loadedFrom
          ? `loaded the saved index of ${key} (${ready.loadedFrom})`
          : `${clone ? 'cloned and indexed' : 'indexed'} ${key}`;
        log(
          `${how}: ${count(ready.files, 'file')}, ${count(ready.chunkCount, 'chunk')} in ${ms} ms${guarded ? ` (${guarded})` : ''}`,
        );
        if (cacheFile) {
          entry.saveTo = cacheFile;
          this.saveSoon(key, entry, 0);
        }
        if (!clone && this.options.watch !== false && this.entries.get(key) === entry) {
          this.watch(key, entry, ready);
          void entry.watch?.ready.then(watching);
        } else watching();
        const learning = performance.now();
        void ready.vectorsReady().then(() => {
          if (ready.hasVectors && !this.options.build.model && !ready.loadedFrom)
            log(`learned vectors from ${key} in ${Math.round(performance.now() - learning)} ms`);
        });
      },
      (error: Error) => {
        log(`cannot index ${key}: ${error.message}`);
        watching();
        void entry.cleanup?.();
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry;
  }

  /** Re-reads changed files shortly after they are saved (only those files are chunked again). */
  private watch(dir: string, entry: Entry, index: CodeIndex): void {
    entry.watch = watchRepo(
      dir,
      (name) => index.skipsDir(name),
      (paths) => {
        const next = entry.index.then((current) => current.withFiles(paths));
        next.then(
          () => {
            if (this.entries.get(dir) === entry) entry.index = next;
            this.saveSoon(dir, entry, SAVE_AFTER_MS);
          },
          (error: Error) => this.options.log(`cannot re-index ${paths.join(', ')}: ${error.message}`),
        );
      },
    );
  }
}

/** A watched index is saved this long after its last change (a burst of saves, a checkout, is saved once). */
const SAVE_AFTER_MS = 5000;

/** How many repositories stay indexed (`MCPKIT_SEARCH_CACHE_SIZE`, default 16; a bad value warns). */
export function cacheCapacity(
  env: Readonly<Record<string, string | undefined>>,
  log: (message: string) => void,
): number {
  const raw = env.MCPKIT_SEARCH_CACHE_SIZE;
  if (raw === undefined || raw === '') return 16;
  const n = Number(raw);
  if (Number.isInteger(n) && n >= 1) return n;
  log(`MCPKIT_SEARCH_CACHE_SIZE=${raw} is not a whole number from 1; using 16`);
  return 16;
}
