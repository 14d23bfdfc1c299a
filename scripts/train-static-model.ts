// Trains the static embedding model shipped in models/code-words/ (model2vec's format: tokenizer.json +
// model.safetensors), so a plain-English query lands near the code that does what it says:
//
//   tsx scripts/train-static-model.ts [OUT_DIR]        (2 cores: minutes, well under an hour)
//
// Data: (doc comment, code) pairs — a doc comment (JSDoc, docstring, Rustdoc, GoDoc, …) and the ~30 lines of
// code under it — mined from the sources npm and Debian ship on this machine: the project's node_modules
// (pinned by package-lock.json), bench/corpora/node_modules, and the Debian packages listed in DEBIAN below
// (installed with apt when run as root; their versions are written to the model's manifest), with the JDK's
// src.zip and the kernel's source tarball unpacked in part. Left out: every
// repository of semble's benchmark (its benchmarks/repos.json) and every tree of our own quality benchmark
// (bench/corpora-sources.ts), so neither is ever scored on what the model learned from.
// Method, in two steps. Latent semantic analysis over the pairs — each pair is one document of comment tokens
// and code tokens (mcpkit's own tokenizer), a randomized truncated SVD of its tf-idf matrix (CorpusVectors) — so an
// English word and the identifiers written under it share directions ("remove" near `delete`, `evict`). Then a
// contrastive fit from there (scripts/contrastive-fit.ts): token vectors and weights moved so a comment's first
// sentence, pooled as a search pools a query, lands nearer its own code than the other code of its batch. On the
// quality bench this lifted the model's semantic mode from 0.78 to 0.86 and its natural-language figures too.
// A token's vector is its row, its weight (idf to start) fitted too; a token is also its own continuation piece
// (WordPiece with an empty continuing_subword_prefix reads `readfilesync` as read file sync), and suffix
// pieces (`ing`, `s`, …) weigh 0.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { docBlocks, STYLE, type Style, sentenceOf } from '../bench/nl-queries.js';
import { tokenize } from '../src/search/lexical/tokenize.js';
import { CorpusVectors } from '../src/search/vectors/corpus-vectors.js';
import { StaticModel } from '../src/search/vectors/static-model.js';
import { type Bag, contrastiveFit, type FitOptions } from './contrastive-fit.js';

const started = performance.now();
const project = fileURLToPath(new URL('..', import.meta.url));
const out = process.argv[2] ?? join(project, 'models', 'code-words');

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
];
// Two Debian packages ship archives: the JDK's sources (java.base and more; not java.net.http, a benchmark tree)
// and the kernel's (kernel/ and mm/, not lib/, a benchmark tree), unpacked into a scratch directory.
const scratch = mkdtempSync(join(tmpdir(), 'mcpkit-train-'));
const JDK_ZIP = '/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip';
if (existsSync(JDK_ZIP))
  spawnSync('unzip', [
    '-q',
    JDK_ZIP,
    'java.base/*',
    'java.sql/*',
    'java.logging/*',
    'java.xml/*',
    '-d',
    join(scratch, 'jdk'),
  ]);
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

const MAX_PAIRS = 200_000;
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
    if (documents.length >= MAX_PAIRS) break;
  }
  process.stdout.write(`${root}: ${documents.length} pairs so far (${files} files)\n`);
  if (documents.length >= MAX_PAIRS) break;
}

rmSync(scratch, { recursive: true, force: true });

const DIMENSIONS = 128;
/** The contrastive fit's settings (measured on bench/search-quality.ts's natural-language set; see docs/search.md). */
const FIT: FitOptions = {
  epochs: 2,
  batch: 256,
  rate: 0.002,
  weightRate: 0.01,
  scale: 20,
  seed: 7,
  local: false,
};
const vectors = await CorpusVectors.build(documents, { dimensions: DIMENSIONS, maxTerms: 24_000 });
const model = vectors.model();
const k = model.dimensions;

// The WordPiece vocabulary: [UNK], the terms, then suffix pieces. No `##` prefix for pieces inside a word
// (`continuing_subword_prefix: ""`): a term is its own continuation, which halves the file.
const vocab: Record<string, number> = { '[UNK]': 0 };
const rows: Array<{ term: number; weight: number }> = [{ term: -1, weight: 0 }];
const add = (piece: string, term: number, weight: number) => {
  if (piece in vocab) return;
  vocab[piece] = rows.length;
  rows.push({ term, weight });
};
model.terms.forEach((term, t) => {
  add(term, t, model.idf[t] as number);
});
for (const suffix of ['s', 'es', 'ing', 'ed', 'e', 'd', 'ies', 'y', 'er', 'ly', '_', '$']) add(suffix, -1, 0);

const embeddings = new Float32Array(rows.length * k);
const weights = new Float32Array(rows.length);
rows.forEach(({ term, weight }, row) => {
  weights[row] = weight;
  if (term < 0) return;
  // Rows scaled to unit length to start from: the weight (idf) alone says how much a token counts.
  let norm = 0;
  for (let j = 0; j < k; j++) norm += (model.basis[term * k + j] as number) ** 2;
  norm = Math.sqrt(norm) || 1;
  for (let j = 0; j < k; j++) embeddings[row * k + j] = (model.basis[term * k + j] as number) / norm;
});

mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, 'tokenizer.json'),
  JSON.stringify({
    version: '1.0',
    normalizer: { type: 'BertNormalizer', lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '', vocab },
  }),
);
// The fit reads text through the tokenizer just written, as a search will: the LSA rows, saved, then loaded.
writeSafetensors(join(out, 'model.safetensors'), [
  ['embeddings', 'F32', [rows.length, k], Buffer.from(embeddings.buffer)],
  ['weights', 'F32', [rows.length], Buffer.from(weights.buffer)],
]);
const reader = await StaticModel.load(out);
const bag = (text: string, cap: number): Bag => {
  const counts = new Map<number, number>();
  for (const id of reader
    .tokenize(text)
    .filter((id) => (weights[id] as number) > 0)
    .slice(0, cap))
    counts.set(id, (counts.get(id) ?? 0) + 1);
  return { ids: Int32Array.from(counts.keys()), counts: Float32Array.from(counts.values()) };
};
// The English side is the comment's first sentence (what a person types), else the whole comment.
const bags = pairs
  .map((pair) => ({ query: bag(sentenceOf(pair.comment) ?? pair.comment, 64), code: bag(pair.code, 400) }))
  .filter((pair) => pair.query.ids.length > 0 && pair.code.ids.length > 0);
contrastiveFit(bags, embeddings, weights, k, {
  ...FIT,
  onEpoch: (epoch, loss, recall) =>
    process.stdout.write(
      `contrastive fit, epoch ${epoch}: loss ${loss.toFixed(3)}, held-out recall@1 among 1,000 ${recall.toFixed(3)}\n`,
    ),
});
const halves = new Uint16Array(embeddings.length);
for (let i = 0; i < embeddings.length; i++) halves[i] = toHalf(embeddings[i] as number);
writeSafetensors(join(out, 'model.safetensors'), [
  ['embeddings', 'F16', [rows.length, k], Buffer.from(halves.buffer)],
  ['weights', 'F32', [rows.length], Buffer.from(weights.buffer)],
]);
const seconds = Math.round((performance.now() - started) / 1000);
writeFileSync(
  join(out, 'manifest.json'),
  `${JSON.stringify(
    {
      method:
        'latent semantic analysis over (doc comment, code) pairs (randomized truncated SVD of their tf-idf matrix), then a contrastive fit of token vectors and weights: a comment sentence pooled near its own code, against the other code of its batch',
      fit: FIT,
      pairs: documents.length,
      files,
      terms: model.terms.length,
      dimensions: k,
      seconds,
      debian: versions,
      npm: 'node_modules and bench/corpora/node_modules as pinned by their package-lock.json',
      excluded: EXCLUDED,
    },
    null,
    2,
  )}\n`,
);
process.stdout.write(
  `${documents.length} pairs from ${files} files → ${model.terms.length} terms × ${k} in ${out} (${seconds} s)\n`,
);

function toHalf(value: number): number {
  const f32 = new Float32Array([value]);
  const bits = new Uint32Array(f32.buffer)[0] as number;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = ((bits >>> 23) & 0xff) - 127 + 15;
  const mantissa = bits & 0x7fffff;
  if (exponent <= 0) {
    if (exponent < -10) return sign;
    return sign | ((mantissa | 0x800000) >> (1 - exponent + 13));
  }
  if (exponent >= 31) return sign | 0x7c00;
  return sign | (exponent << 10) | (mantissa >> 13);
}

function writeSafetensors(file: string, tensors: Array<[string, string, number[], Buffer]>): void {
  const header: Record<string, unknown> = {};
  let offset = 0;
  for (const [name, dtype, shape, data] of tensors) {
    header[name] = { dtype, shape, data_offsets: [offset, offset + data.length] };
    offset += data.length;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  writeFileSync(file, Buffer.concat([length, Buffer.from(json), ...tensors.map((t) => t[3])]));
}
