// The (doc comment, code) pairs both trained models learn from (scripts/train-static-model.ts,
// scripts/train-translation.ts): a doc comment (JSDoc, docstring, Rustdoc, GoDoc, …) and the ~30 lines of code
// under it, mined from the sources npm and Debian ship on this machine — the project's node_modules (pinned by
// package-lock.json), bench/corpora/node_modules, and the Debian packages listed in DEBIAN (installed with apt
// when run as root; their versions go to each model's manifest), with the JDK's src.zip and the kernel's source
// tarball unpacked in part. Left out: every repository of semble's benchmark (its benchmarks/repos.json) and
// every tree of our own benchmarks (bench/corpora-sources.ts, bench/search-nl.ts), so neither is ever scored
// on what a model learned from.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { definesSomething, docBlocks, STYLE, type Style } from '../bench/nl-queries.js';
import { tokenize } from '../src/search/lexical/tokenize.js';

const project = fileURLToPath(new URL('..', import.meta.url));

/** The mined pairs: token documents (comment then code), the raw text, and where they came from. */
export interface MinedPairs {
  /** Each pair's comment tokens followed by its code tokens (one LSA document). */
  documents: string[][];
  /** The raw pairs: the comment's text, the code's (with its file's name). */
  pairs: Array<{ comment: string; code: string }>;
  files: number;
  /** Debian package → version mined ('missing' when not installed). */
  versions: Record<string, string>;
  excluded: string[];
  /** With `wide`: each mined package of bench/corpora-train (name@version) → its licence. */
  licences: Record<string, string>;
}

/** What to mine besides the shared sources. */
export interface MineOptions {
  max?: number;
  /**
   * The translation table's wider corpus (issue 32): every JDK module but the benchmarks' (java.management,
   * jdk.management*, java.net.http), and the npm packages pinned in bench/corpora-train/ (installed there on
   * demand). The static model keeps the narrower one it was trained on.
   */
  wide?: boolean;
  /**
   * Only comments above a definition (`definesSomething`): docBlocks' own test also passes remarks above `if (`,
   * `return f(` and calls, which are not doc comments.
   */
  definitionsOnly?: boolean;
}

/** Mines up to `max` pairs, logging each root's count to stdout. */
export function minePairs({
  max = 200_000,
  wide = false,
  definitionsOnly = false,
}: MineOptions = {}): MinedPairs {
  /** Debian packages whose source trees are mined (golang-*-dev, librust-*-dev, python3-*, ruby-*, php-*). */
  const DEBIAN = [
    'openjdk-17-source',
    'linux-source-6.1',
    'librust-clap-dev',
    'golang-github-stretchr-testify-dev',
    'golang-golang-x-text-dev',
    'python3-pygments',
    'python3-docutils',
    'php-symfony-http-foundation',
    'ruby-rspec-core',
    'librust-rand-dev',
    'golang-github-gorilla-mux-dev',
  ];
  // Two Debian packages ship archives: the JDK's sources (java.base and more; not java.net.http, a benchmark tree)
  // and the kernel's (kernel/ and mm/, not lib/, a benchmark tree), unpacked into a scratch directory.
  const scratch = mkdtempSync(join(tmpdir(), 'mcpkit-train-'));
  const JDK_ZIP = '/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip';
  if (existsSync(JDK_ZIP))
    spawnSync('unzip', [
      '-q',
      JDK_ZIP,
      ...(wide ? ['*'] : ['java.base/*', 'java.sql/*', 'java.logging/*', 'java.xml/*']),
      ...(wide ? ['-x', 'java.management*', 'jdk.management*', 'java.net.http/*'] : []),
      '-d',
      join(scratch, 'jdk'),
    ]);
  const trainCorpus = join(project, 'bench', 'corpora-train');
  if (wide && !existsSync(join(trainCorpus, 'node_modules')))
    spawnSync('npm', ['ci', '--prefix', trainCorpus, '--ignore-scripts', '--no-audit', '--no-fund'], {
      stdio: 'inherit',
    });
  const KERNEL = '/usr/src/linux-source-6.1.tar.xz';
  if (existsSync(KERNEL)) {
    mkdirSync(join(scratch, 'linux'));
    spawnSync('tar', [
      '-xJf',
      KERNEL,
      '-C',
      join(scratch, 'linux'),
      '--wildcards',
      'linux-source-6.1/kernel/*.c',
      'linux-source-6.1/mm/*.c',
    ]);
  }
  const ROOTS = [
    join(scratch, 'jdk'),
    join(scratch, 'linux'),
    join(project, 'node_modules'),
    join(project, 'bench', 'corpora', 'node_modules'),
    ...(wide ? [join(trainCorpus, 'node_modules')] : []),
    '/usr/share/gocode/src',
    '/usr/share/cargo/registry',
    '/usr/lib/python3/dist-packages',
    '/usr/share/rubygems-integration/all/gems',
    '/usr/lib/ruby/vendor_ruby',
    '/usr/share/php',
  ];

  /** semble's benchmark repositories and our benchmark's trees, as a path segment (a version may follow). */
  const EXCLUDED = [
    ...'aiohttp fastapi flask httpx model2vec pydantic requests starlette axios express redux gin cobra chi gson commons-lang jackson-databind guzzle monolog laravel framework sinatra rack rails railties tokio trpc messagepack ktor cats alamofire click serde serde_derive serde_json nlohmann phoenix axum vitest newtonsoft dapper kotlinx-coroutines exposed circe http4s vapor plug ecto abseil fmt curl redis libuv bats-core aeson telescope lazy zig nvm bash-it pandoc xmonad mini zls zig-clap'.split(
      ' ',
    ),
    // bench/corpora-sources.ts
    ...'ajv undici expo-modules-core com.cysharp.unitask regex thor Console jinja2 pl spdlog urfave bash-completion node-gyp'.split(
      ' ',
    ),
    // bench/search-nl.ts
    ...'zod rxjs luxon cordova-android mobx @capacitor'.split(' '),
  ];
  const EXCLUDED_SEGMENT = new RegExp(
    `^(${EXCLUDED.map((n) => n.replace(/[.]/g, '\\.')).join('|')})([-_@.]?v?\\d[\\w.+~-]*)?$`,
    'i',
  );
  const SKIPPED_DIR = /^(test|tests|__tests__|spec|testdata|examples?|\.[\w-]+|dist-types|min)$/i;

  if (process.getuid?.() === 0) {
    const missing = DEBIAN.filter(
      (pkg) =>
        !spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' }).stdout.includes(
          'ok installed',
        ),
    );
    if (missing.length > 0)
      spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { stdio: 'inherit' });
  }
  const versions = Object.fromEntries(
    DEBIAN.map((pkg) => [
      pkg,
      spawnSync('dpkg-query', ['-W', '-f=${Version}', pkg], { encoding: 'utf8' }).stdout || 'missing',
    ]),
  );

  /** Source files under a root, skipping excluded repositories, tests, minified and large files. */
  function* sources(dir: string, depth = 0): Generator<string> {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (EXCLUDED_SEGMENT.test(name) || SKIPPED_DIR.test(name)) continue;
      const path = join(dir, name);
      let stat: ReturnType<typeof statSync>;
      try {
        stat = statSync(path);
      } catch {
        continue;
      }
      if (stat.isDirectory()) {
        if (depth < 14) yield* sources(path, depth + 1);
      } else if (STYLE[extname(name)] && stat.size < 400_000 && !/\.min\.|\.map$|\.bundle\./.test(name))
        yield path;
    }
  }

  const documents: string[][] = [];
  /** The raw pairs, for the contrastive fit: the comment's text, the code's (with its file's name). */
  const pairs: Array<{ comment: string; code: string }> = [];
  const seen = new Set<string>();
  let files = 0;
  for (const root of ROOTS) {
    if (!existsSync(root)) continue;
    for (const file of sources(root)) {
      files++;
      const lines = readFileSync(file, 'utf8').split('\n');
      const blocks = docBlocks(lines, STYLE[extname(file)] as Style);
      blocks.forEach((block, i) => {
        if (definitionsOnly && !definesSomething(block.under)) return;
        const comment = tokenize(block.text.replace(/@\w+|[{}]/g, ' '));
        if (comment.length < 3 || seen.has(block.text)) return;
        seen.add(block.text);
        const until = Math.min(block.end + 31, blocks[i + 1]?.start ?? lines.length, lines.length);
        const code = tokenize(lines.slice(block.end + 1, until).join('\n'));
        if (code.length < 3) return;
        documents.push([...comment, ...code]);
        pairs.push({
          comment: block.text.replace(/@\w+|[{}]/g, ' '),
          code: `${file.split('/').slice(-2).join(' ')} ${lines.slice(block.end + 1, until).join('\n')}`,
        });
      });
      if (documents.length >= max) break;
    }
    process.stdout.write(`${root}: ${documents.length} pairs so far (${files} files)\n`);
    if (documents.length >= max) break;
  }

  rmSync(scratch, { recursive: true, force: true });
  return {
    documents,
    pairs,
    files,
    versions,
    excluded: EXCLUDED,
    licences: wide ? licencesOf(trainCorpus) : {},
  };
}

/** name@version → licence of each package bench/corpora-train's lock file pins (from its package.json). */
function licencesOf(root: string): Record<string, string> {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; license?: string }>;
  };
  const out: Record<string, string> = {};
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path) continue;
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    out[`${name}@${entry.version}`] = entry.license ?? 'unknown';
  }
  return out;
}
