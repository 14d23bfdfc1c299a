import { lstat, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { mapConcurrent } from '../../internal/concurrency.js';
import { type RepoFiles, repoFiles } from './repo-file.js';
import { looksBinary, SNIFF_BYTES } from './text-sniff.js';

/** Directories that hold dependencies, builds or tool state: never code the user wrote. */
const SKIPPED_DIRS = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  'bower_components',
  'vendor',
  'third_party',
  'dist',
  'build',
  'out',
  'target',
  'coverage',
  '__pycache__',
  '.venv',
  'venv',
  '.tox',
  '.mypy_cache',
  '.pytest_cache',
  '.next',
  '.nuxt',
  '.cache',
  '.idea',
  '.vscode',
  '.mcpkit',
]);
/** Build output directories: skipped, unless a tree has no code anywhere else (a package that ships only dist/). */
const BUILD_DIRS = new Set(['dist', 'build', 'out']);
/** Generated files that look like source. */
const SKIPPED_FILES = /(\.min\.(js|css)|\.map|\.lock|-lock\.json|-lock\.yaml|\.snap|\.pb\.go|_pb2\.py)$/;
/** The largest file indexed (and the largest `.gitignore` read). */
export const MAX_BYTES = 1024 * 1024;
/** A guard against indexing a whole disk by mistake. */
const MAX_FILES = 100_000;

/** Options for {@link walk}. */
export interface WalkOptions {
  /**
   * Open each file to see whether its first 8 KiB are text ({@link looksBinary}; default true). A caller that
   * reads every file anyway checks that itself and saves an open, a read and a close per file.
   */
  sniff?: boolean;
  /** Walk into `dist`, `build` and `out` too (default false). */
  buildDirs?: boolean;
}

/** A file as the index saw it: size and modification time decide whether its chunks are still good. */
export type FileStamp = { size: number; mtimeMs: number };

/** A file to index: its path relative to the root (with `/`), its size and modification time. */
export interface WalkedFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/**
 * Every indexable file under `root`: `.gitignore` and `.ignore` honoured at every level, dependency /
 * build / tool directories skipped, files over 1 MiB, binaries ({@link looksBinary}) and generated files
 * (minified, source maps, lock files, snapshots) left out; at most `maxFiles` files (100,000). Sorted by path.
 * Only regular files and real directories are taken: a symlink is never followed (it could lead out of the
 * repository), and devices, FIFOs and sockets are never opened.
 */
export async function walk(
  root: string,
  maxFiles = MAX_FILES,
  options: WalkOptions = {},
): Promise<WalkedFile[]> {
  const out: WalkedFile[] = [];
  const reader = repoFiles(root);
  let seen = 0;
  // Directories are walked concurrently, and the files of each are stat'ed and sniffed concurrently: one
  // await after another leaves the CPU idle. The order is restored by the sort at the end.
  const visit = async (dir: string, rules: readonly { base: string; ig: Ignore }[]) => {
    if (seen >= maxFiles) return;
    const local = await ignoreRules(reader, dir);
    const active = local ? [...rules, { base: dir, ig: local }] : rules;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const files: string[] = [];
    const dirs: string[] = [];
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = join(dir, entry.name);
      const isDir = entry.isDirectory();
      if (!isDir && !entry.isFile()) continue;
      if (skipsName(entry.name, isDir, options) || isIgnored(active, full, isDir)) continue;
      if (isDir) dirs.push(full);
      else if (seen < maxFiles) {
        files.push(full);
        seen++;
      }
    }
    const found = await mapConcurrent(files, 32, async (full) => {
      const file = await stamped(root, full);
      if (!file || (options.sniff !== false && (await isBinary(reader, full)))) return undefined;
      return file;
    });
    for (const file of found) if (file) out.push(file);
    await Promise.all(dirs.map((sub) => visit(sub, active)));
  };
  await visit(root, []);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A directory's `.gitignore` and `.ignore` (a link to one is followed only to a file inside the repository). */
async function ignoreRules(reader: RepoFiles, dir: string): Promise<Ignore | undefined> {
  let rules: Ignore | undefined;
  for (const name of ['.gitignore', '.ignore']) {
    const bytes = await reader.read(join(dir, name), { maxBytes: MAX_BYTES, follow: true });
    if (bytes !== undefined) rules = (rules ?? ignore()).add(bytes.toString('utf8'));
  }
  return rules;
}

/** Binary, or no longer a regular file inside the repository (replaced since it was listed). */
async function isBinary(reader: RepoFiles, file: string): Promise<boolean> {
  const head = await reader.read(file, { maxBytes: MAX_BYTES, head: SNIFF_BYTES });
  return head === undefined || looksBinary(head);
}

/**
 * The walker's verdict on one path (relative to `root`, with `/`), for a file that changed after the walk: the
 * same rules — skipped directories and generated names, `.gitignore` / `.ignore` at every level, size — so a file
 * saved while the index is live is in it exactly when a fresh walk would find it: never through a linked
 * directory, never a link itself. Binaries are the reader's check.
 */
export async function walkOne(
  root: string,
  path: string,
  options: Pick<WalkOptions, 'buildDirs'> = {},
): Promise<WalkedFile | undefined> {
  const parts = path.split('/');
  if (parts.some((name) => name === '' || name === '.' || name === '..')) return undefined;
  const reader = repoFiles(root);
  let rules: { base: string; ig: Ignore }[] = [];
  let dir = root;
  for (const [i, name] of parts.entries()) {
    const local = await ignoreRules(reader, dir);
    if (local) rules = [...rules, { base: dir, ig: local }];
    const full = join(dir, name);
    const isDir = i < parts.length - 1;
    if (skipsName(name, isDir, options) || isIgnored(rules, full, isDir)) return undefined;
    // The walk enters real directories only: a file reached through a linked one (a link added to a running
    // server, `ln -s /etc x`) is not in the repository.
    if (isDir && !(await lstat(full).catch(() => undefined))?.isDirectory()) return undefined;
    dir = full;
  }
  return stamped(root, dir);
}

/** Whether the walker leaves an entry out by its name alone: a skipped directory, a generated file. */
function skipsName(name: string, isDir: boolean, options: Pick<WalkOptions, 'buildDirs'>): boolean {
  if (!isDir) return SKIPPED_FILES.test(name);
  return SKIPPED_DIRS.has(name) && !(options.buildDirs && BUILD_DIRS.has(name));
}

function isIgnored(rules: readonly { base: string; ig: Ignore }[], full: string, isDir: boolean): boolean {
  return rules.some(({ base, ig }) =>
    ig.ignores(relative(base, full).split(sep).join('/') + (isDir ? '/' : '')),
  );
}

/** A regular file (not a symlink: the walk does not follow them) with its stamp, unless empty or over the cap. */
async function stamped(root: string, full: string): Promise<WalkedFile | undefined> {
  const info = await lstat(full).catch(() => undefined);
  if (!info?.isFile() || info.size > MAX_BYTES || info.size === 0) return undefined;
  return { path: relative(root, full).split(sep).join('/'), size: info.size, mtimeMs: info.mtimeMs };
}

/** Whether the walker enters a directory of this name (with these options); for the watcher. */
export const isSkippedDir = (name: string, options: Pick<WalkOptions, 'buildDirs'> = {}): boolean =>
  skipsName(name, true, options);

/**
 * Why a walk found nothing, when a `.gitignore` (or `.ignore`) at the top is the cause: Debian's `linux-source`
 * ignores `/*` and then un-ignores `debian/` only. Names the file and the rule (the line that alone leaves out the
 * most of the top-level entries); undefined when ignore rules are not the reason.
 */
export async function explainEmpty(root: string): Promise<string | undefined> {
  const entries = (await readdir(root, { withFileTypes: true }).catch(() => [])).filter(
    (entry) =>
      (entry.isFile() || entry.isDirectory()) &&
      !skipsName(entry.name, entry.isDirectory(), {}) &&
      !['.gitignore', '.ignore'].includes(entry.name),
  );
  if (entries.length === 0) return undefined;
  const reader = repoFiles(root);
  const named = (entry: (typeof entries)[number]) => entry.name + (entry.isDirectory() ? '/' : '');
  for (const name of ['.gitignore', '.ignore']) {
    const bytes = await reader.read(join(root, name), { maxBytes: MAX_BYTES, follow: true });
    if (bytes === undefined) continue;
    let best: { line: number; rule: string; count: number } | undefined;
    for (const [i, line] of bytes.toString('utf8').split(/\r?\n/).entries()) {
      const rule = line.trim();
      if (rule === '' || rule.startsWith('#') || rule.startsWith('!')) continue;
      const one = ignore().add(rule);
      const count = entries.filter((entry) => one.ignores(named(entry))).length;
      if (count > (best?.count ?? 0)) best = { line: i + 1, rule, count };
    }
    if (best && best.count * 2 > entries.length)
      return `nothing to index in ${root}: ${join(root, name)} line ${best.line} ("${best.rule}") ignores ${best.count} of the ${entries.length} entries at its top; remove that rule or search a directory it does not cover`;
  }
  return undefined;
}
