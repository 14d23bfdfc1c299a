// Lays out the quality benchmark's source trees (bench/corpora-sources.ts) under bench/corpora/trees/: installs
// the Debian packages that ship them when run as root (else says which to install), then copies each tree,
// regular files only (a symlink would index one file twice). Run by `npm run bench:corpora` after the npm
// packages are installed; a tree already laid out is kept (delete bench/corpora/trees/ to lay them anew).
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CorpusSource, SOURCES } from './corpora-sources.js';

const corpora = fileURLToPath(new URL('./corpora/', import.meta.url));
const trees = join(corpora, 'trees');
/** A tree laid out whole (beside it, so the index never sees it). */
const marker = (name: string) => join(trees, `.${name}.laid-out`);

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) {
    console.error(`bench:corpora: ${command} ${args.join(' ')} failed (exit ${result.status})`);
    process.exit(1);
  }
}

const installed = (pkg: string) =>
  spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' }).stdout.includes(
    'install ok installed',
  );

const needed = SOURCES.filter((s) => s.apt && !existsSync(marker(s.name)) && !installed(s.apt));
if (needed.length > 0) {
  const packages = [...new Set(needed.map((s) => s.apt as string))];
  if (process.getuid?.() !== 0) {
    console.error(
      `bench:corpora: Debian packages missing: run \`sudo apt-get install -y --no-install-recommends ${packages.join(' ')}\``,
    );
    process.exit(1);
  }
  console.log(`bench:corpora: installing ${packages.join(' ')}`);
  run('apt-get', ['install', '-y', '--no-install-recommends', ...packages]);
}

/** Copies regular files under `from` to `to`, adding `ext` to names without an extension. */
function copyTree(from: string, to: string, ext?: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from)) {
    const source = join(from, entry);
    if (entry === '__pycache__') continue;
    const stat = lstatSync(source);
    if (stat.isDirectory()) copyTree(source, join(to, entry), ext);
    else if (stat.isFile()) copyFileSync(source, join(to, ext && !extname(entry) ? `${entry}${ext}` : entry));
  }
}

function layOut(source: CorpusSource): void {
  const dest = join(trees, source.name);
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  if (source.zip) {
    const scratch = `${dest}.unzip`;
    rmSync(scratch, { recursive: true, force: true });
    run('unzip', ['-q', source.zip.file, `${source.zip.prefix}*`, '-d', scratch]);
    rmSync(dest, { recursive: true, force: true });
    renameSync(join(scratch, source.zip.prefix), dest);
    rmSync(scratch, { recursive: true, force: true });
  } else if (source.tar) {
    run('tar', [
      '-xJf',
      source.tar.file,
      '-C',
      dest,
      '--wildcards',
      '--no-wildcards-match-slash',
      `--strip-components=${source.tar.strip}`,
      ...source.tar.members,
    ]);
  } else if (source.dir) {
    const from = source.apt ? source.dir : join(corpora, 'node_modules', source.dir);
    if (!existsSync(from)) {
      console.error(`bench:corpora: ${from} not found (is ${source.apt ?? 'the npm package'} installed?)`);
      process.exit(1);
    }
    copyTree(from, dest, source.addExtension);
  }
  writeFileSync(marker(source.name), '');
}

for (const source of SOURCES) {
  if (existsSync(marker(source.name))) continue;
  layOut(source);
  console.log(`bench:corpora: laid out ${source.name} (${source.language})`);
}
