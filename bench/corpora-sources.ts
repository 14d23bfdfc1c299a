// The source trees of the multi-language quality benchmark (bench/search-quality.ts): one per language, from
// Debian packages (source trees that golang-*-dev, librust-*-dev, ruby-*, php-*, python3-*, lua-* ship, the
// JDK's src.zip, the kernel's source tarball) and npm packages pinned in bench/corpora/package.json. None of
// them is a repository of semble's benchmark (its benchmarks/repos.json): that set stays a check we never
// tune on. `npm run bench:corpora` installs the Debian packages (as root) and copies each tree to
// bench/corpora/trees/<name>/, so every run indexes the same files.

/** Where one suite's files come from. */
export interface CorpusSource {
  /** Suite name: the directory under bench/corpora/trees/ and the fixture's `package`. */
  name: string;
  language: string;
  /** The Debian package that ships it (installed by bench:corpora); none: an npm package in bench/corpora. */
  apt?: string;
  /** A directory to copy (absolute for Debian, under bench/corpora/node_modules/ for npm). */
  dir?: string;
  /** A zip archive and the member prefix to extract (the JDK's src.zip). */
  zip?: { file: string; prefix: string };
  /** A tar archive and the wildcard members to extract (the kernel's source tarball). */
  tar?: { file: string; members: string[]; strip: number };
  /** An extension to add to files that have none (bash completions are named after their command). */
  addExtension?: string;
}

export const SOURCES: readonly CorpusSource[] = [
  {
    name: 'jdk-net-http',
    language: 'java',
    apt: 'openjdk-17-source',
    zip: { file: '/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip', prefix: 'java.net.http/' },
  },
  {
    name: 'linux-lib',
    language: 'c',
    apt: 'linux-source-6.1',
    tar: {
      file: '/usr/src/linux-source-6.1.tar.xz',
      members: ['linux-source-6.1/lib/*.c'],
      strip: 2,
    },
  },
  { name: 'spdlog', language: 'cpp', apt: 'libspdlog-dev', dir: '/usr/include/spdlog' },
  {
    name: 'urfave-cli',
    language: 'go',
    apt: 'golang-github-urfave-cli-v2-dev',
    dir: '/usr/share/gocode/src/github.com/urfave/cli/v2',
  },
  {
    name: 'rust-regex',
    language: 'rust',
    apt: 'librust-regex-dev',
    dir: '/usr/share/cargo/registry/regex-1.7.1/src',
  },
  {
    name: 'thor',
    language: 'ruby',
    apt: 'ruby-thor',
    dir: '/usr/share/rubygems-integration/all/gems/thor-1.2.1/lib',
  },
  {
    name: 'symfony-console',
    language: 'php',
    apt: 'php-symfony-console',
    dir: '/usr/share/php/Symfony/Component/Console',
  },
  { name: 'jinja2', language: 'python', apt: 'python3-jinja2', dir: '/usr/lib/python3/dist-packages/jinja2' },
  { name: 'penlight', language: 'lua', apt: 'lua-penlight', dir: '/usr/share/lua/5.1/pl' },
  {
    name: 'bash-completion',
    language: 'bash',
    apt: 'bash-completion',
    dir: '/usr/share/bash-completion',
    addExtension: '.bash',
  },
  { name: 'ajv', language: 'typescript', dir: 'ajv/lib' },
  { name: 'undici', language: 'javascript', dir: 'undici/lib' },
  { name: 'unitask', language: 'csharp', dir: 'com.cysharp.unitask' },
  { name: 'expo-kotlin', language: 'kotlin', dir: 'expo-modules-core/android/src' },
  { name: 'expo-swift', language: 'swift', dir: 'expo-modules-core/ios' },
];
