import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpkitError } from '../../errors/index.js';
import { DocVectors } from './chunk-vectors.js';

/** The name `--model` takes for the model shipped in the package. */
export const BUILTIN_MODEL = 'builtin';

/**
 * Where the shipped model lies: models/code-words/ at the package's root, the nearest directory above this module
 * that holds a package.json (three levels up in src/search/vectors/ and dist/search/vectors/, two in the bundle's
 * dist/bin/). Trained by scripts/train-static-model.ts.
 */
export const BUILTIN_MODEL_DIR = join(packageRoot(fileURLToPath(import.meta.url)), 'models/code-words/');

function packageRoot(file: string): string {
  let dir = dirname(file);
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/**
 * A static embedding model in model2vec's format, read offline from a directory: `tokenizer.json` (a
 * WordPiece tokenizer in Hugging Face's format) and `model.safetensors` (an `embeddings` tensor of shape
 * [vocabulary, dimensions], float32 or float16; an optional `weights` tensor weighs each token). A text's
 * vector is the weighted mean of its tokens' vectors, L2-normalised.
 */
export class StaticModel {
  private constructor(
    private readonly vocab: ReadonlyMap<string, number>,
    private readonly unk: number | undefined,
    private readonly lowercase: boolean,
    /** What marks a piece inside a word (`##` in BERT's vocabularies; the shipped model has none). */
    private readonly prefix: string,
    private readonly embeddings: Float32Array,
    private readonly weights: Float32Array | undefined,
    readonly dimensions: number,
  ) {}

  /**
   * Loads a model directory ({@link BUILTIN_MODEL}: the shipped one); a McpkitError names the file and what
   * is wrong with it.
   */
  static async load(dir: string): Promise<StaticModel> {
    if (dir === BUILTIN_MODEL) return StaticModel.load(BUILTIN_MODEL_DIR);
    const tokenizerFile = join(dir, 'tokenizer.json');
    const tensorFile = join(dir, 'model.safetensors');
    const tokenizer = JSON.parse(
      await readFile(tokenizerFile, 'utf8').catch(() => fail(tokenizerFile, 'cannot be read')),
    ) as {
      model?: {
        type?: string;
        vocab?: Record<string, number>;
        unk_token?: string;
        continuing_subword_prefix?: string;
      };
      normalizer?: { lowercase?: boolean; type?: string } | null;
    };
    if (tokenizer.model?.type !== 'WordPiece' || !tokenizer.model.vocab)
      fail(
        tokenizerFile,
        `only WordPiece tokenizers are supported (found ${tokenizer.model?.type ?? 'none'})`,
      );
    const vocab = new Map(Object.entries(tokenizer.model?.vocab ?? {}));
    const unk = tokenizer.model?.unk_token === undefined ? undefined : vocab.get(tokenizer.model.unk_token);
    const lowercase = tokenizer.normalizer?.lowercase ?? tokenizer.normalizer?.type === 'BertNormalizer';
    const prefix = tokenizer.model?.continuing_subword_prefix ?? '##';
    const tensors = await readSafetensors(tensorFile);
    const embeddings = tensors.get('embeddings');
    if (embeddings?.shape.length !== 2) return fail(tensorFile, 'has no 2-D "embeddings" tensor');
    const [rows, dimensions] = embeddings.shape as [number, number];
    if (rows < vocab.size) fail(tensorFile, `has ${rows} embedding rows for a vocabulary of ${vocab.size}`);
    const weights = tensors.get('weights')?.data;
    return new StaticModel(vocab, unk, lowercase, prefix, embeddings.data, weights, dimensions);
  }

  /** Token ids of a text: words split at whitespace and punctuation, then greedy longest-match WordPiece. */
  tokenize(text: string): number[] {
    const ids: number[] = [];
    const source = this.lowercase ? text.toLowerCase() : text;
    for (const [word] of source.matchAll(/[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu)) {
      let start = 0;
      const pieces: number[] = [];
      while (start < word.length) {
        let end = word.length;
        let found: number | undefined;
        while (end > start) {
          const piece = (start > 0 ? this.prefix : '') + word.slice(start, end);
          found = this.vocab.get(piece);
          if (found !== undefined) break;
          end--;
        }
        if (found === undefined) {
          pieces.length = 0;
          if (this.unk !== undefined) pieces.push(this.unk);
          break;
        }
        pieces.push(found);
        start = end;
      }
      ids.push(...pieces);
    }
    return ids;
  }

  /**
   * Vocabulary entries nearest a unit vector by cosine, best first, among those `accept` takes (a piece that weighs
   * 0, such as a suffix, never): at most `limit`, each with its cosine. One SIMD pass over int8 copies of the rows.
   */
  nearest(vector: Float32Array, limit: number, accept: (token: string) => boolean): Array<[string, number]> {
    this.rows ??= this.tokenRows();
    const rows = this.rows;
    const cosines = rows.vectors.cosines(vector, rows.tokens.length);
    const best: Array<[string, number]> = [];
    for (let id = 0; id < cosines.length; id++) {
      const cosine = cosines[id] as number;
      if (cosine === 0 || (best.length === limit && cosine <= (best[limit - 1] as [string, number])[1]))
        continue;
      const token = rows.tokens[id];
      if (token === undefined || !accept(token)) continue;
      best.push([token, cosine]);
      best.sort((a, b) => b[1] - a[1]);
      if (best.length > limit) best.pop();
    }
    return best;
  }

  private rows: { tokens: (string | undefined)[]; vectors: DocVectors } | undefined;

  /** Each token's unit row (int8) and its text by id; pieces that weigh nothing are left out. */
  private tokenRows(): { tokens: (string | undefined)[]; vectors: DocVectors } {
    const k = this.dimensions;
    const count = this.embeddings.length / k;
    const tokens: (string | undefined)[] = new Array(count);
    const vectors = new DocVectors(k, count);
    const row = new Float32Array(k);
    for (const [token, id] of this.vocab) {
      if (id >= count || id === this.unk || this.weights?.[id] === 0) continue;
      let norm = 0;
      for (let d = 0; d < k; d++) norm += (this.embeddings[id * k + d] as number) ** 2;
      norm = Math.sqrt(norm);
      if (norm === 0) continue;
      for (let d = 0; d < k; d++) row[d] = (this.embeddings[id * k + d] as number) / norm;
      vectors.set(id, row);
      tokens[id] = token;
    }
    return { tokens, vectors };
  }

  /** The text's vector (all zeros when no token is known). */
  encode(text: string): Float32Array {
    const out = new Float32Array(this.dimensions);
    let total = 0;
    for (const id of this.tokenize(text)) {
      if (id === this.unk) continue;
      const weight = this.weights?.[id] ?? 1;
      const row = id * this.dimensions;
      for (let d = 0; d < this.dimensions; d++)
        out[d] = (out[d] as number) + weight * (this.embeddings[row + d] as number);
      total += weight;
    }
    if (total === 0) return out;
    let norm = 0;
    for (let d = 0; d < this.dimensions; d++) norm += (out[d] as number) ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < this.dimensions; d++) out[d] = (out[d] as number) / norm;
    return out;
  }
}

function fail(file: string, problem: string): never {
  throw new McpkitError('CONFIG_INVALID', `${file}: ${problem}`, { file });
}

/** Reads a safetensors file: an 8-byte little-endian header length, a JSON header, then the tensor bytes. */
async function readSafetensors(file: string): Promise<Map<string, { shape: number[]; data: Float32Array }>> {
  const bytes = await readFile(file).catch(() => fail(file, 'cannot be read'));
  if (bytes.length < 8) fail(file, 'is too short to be safetensors');
  const headerLength = Number(bytes.readBigUInt64LE(0));
  if (8 + headerLength > bytes.length) fail(file, 'has a header longer than the file');
  let header: Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>;
  try {
    header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8'));
  } catch {
    fail(file, 'has a header that is not JSON');
  }
  const base = 8 + headerLength;
  const out = new Map<string, { shape: number[]; data: Float32Array }>();
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [from, to] = info.data_offsets;
    const raw = bytes.subarray(base + from, base + to);
    const count = info.shape.reduce((a, b) => a * b, 1);
    // Copied out of the file's buffer into an aligned one and read as typed arrays (little-endian, as every
    // machine Node runs on): a 12 MB model loads in milliseconds, not the seconds a per-element read takes.
    if (info.dtype === 'F32') {
      const copy = new Float32Array(count);
      new Uint8Array(copy.buffer).set(raw.subarray(0, count * 4));
      out.set(name, { shape: info.shape, data: copy });
    } else if (info.dtype === 'F16') {
      const bits = new Uint16Array(count);
      new Uint8Array(bits.buffer).set(raw.subarray(0, count * 2));
      const table = halfTable();
      const copy = new Float32Array(count);
      for (let i = 0; i < count; i++) copy[i] = table[bits[i] as number] as number;
      out.set(name, { shape: info.shape, data: copy });
    } else fail(file, `tensor "${name}" has dtype ${info.dtype}; F32 and F16 are supported`);
  }
  return out;
}

let halfValues: Float32Array | undefined;
/** Every float16 bit pattern's value, built once (256 KB). */
function halfTable(): Float32Array {
  if (!halfValues) {
    halfValues = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) halfValues[h] = halfToFloat(h);
  }
  return halfValues;
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}
