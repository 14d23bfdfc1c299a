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
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sentenceOf } from '../bench/nl-queries.js';
import { CorpusVectors } from '../src/search/vectors/corpus-vectors.js';
import { StaticModel } from '../src/search/vectors/static-model.js';
import { type Bag, contrastiveFit, type FitOptions } from './contrastive-fit.js';
import { minePairs } from './mine-pairs.js';

const started = performance.now();
const project = fileURLToPath(new URL('..', import.meta.url));
const out = process.argv[2] ?? join(project, 'models', 'code-words');

// WIDE=1: the translation table's wider corpus (mine-pairs.ts); the shipped model was trained without it.
const wide = process.env.WIDE === '1';
const {
  documents,
  pairs,
  files,
  versions,
  excluded: EXCLUDED,
} = minePairs(wide ? { wide, max: 400_000 } : {});

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
      npm: wide
        ? 'node_modules, bench/corpora/node_modules and bench/corpora-train/node_modules as pinned by their package-lock.json'
        : 'node_modules and bench/corpora/node_modules as pinned by their package-lock.json',
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
