// The saved index: what search needs (postings, document lengths, chunk lines and symbols, int8 vectors and the
// vectors' model) as typed arrays in one binary file, read back in one read without tokenizing anything. Chunk code
// is not stored: it is read from its file when an answer shows it, so the file stays smaller than the source.
import { lstat, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { McpkitError } from '../../errors/index.js';
import { writeFileAtomic } from '../../internal/text-file.js';
import type { ChunkPlace } from '../chunks/chunker.js';
import { repoFiles } from '../files/repo-file.js';
import type { FileStamp } from '../files/walk.js';
import type { Bm25Parts } from '../lexical/bm25.js';
import type { CorpusModel } from '../vectors/corpus-vectors.js';

/** Where `mcpkit index` saves a repository's index, relative to its root. */
export const INDEX_FILE = '.mcpkit/search-index.bin';
/** The largest saved index read. */
const MAX_INDEX_BYTES = 1536 * 1024 * 1024;
/** Bumped whenever chunks or their terms would come out differently: an index saved by another version is rebuilt. */
export const CHUNKER_VERSION = 7;
/** The layout of the file itself. */
const FORMAT = 2;
const MAGIC = 'MCPKIDX\n';

/** What an index saves: its files, its chunks by document number, its postings, and its vectors if learned. */
export interface SavedIndex {
  files: Map<string, FileStamp>;
  /** Files walked but left out (not text, long lines): unchanged, they are not read again at the next start. */
  leftOut?: Map<string, FileStamp>;
  /** By document number; undefined for a document removed since the build. */
  chunks: (ChunkPlace | undefined)[];
  bm25: Bm25Parts;
  vectors?: { model: CorpusModel; rows: Int8Array };
}

interface Header {
  format: number;
  chunker: number;
  files: [path: string, size: number, mtimeMs: number][];
  /** Absent in an index saved before it: its left-out files are read once more. */
  leftOut?: [path: string, size: number, mtimeMs: number][];
  languages: string[];
  dimensions: number;
  sections: Record<string, [offset: number, bytes: number]>;
}

type Typed = Int32Array | Uint16Array | Uint8Array | Int8Array | Float32Array;

/**
 * Reads a saved index. Undefined when there is none (or it is not a regular file inside the repository); a
 * reason string when there is one that cannot be used (another version, or not an index at all).
 */
export async function loadSavedIndex(
  root: string,
  file = join(root, INDEX_FILE),
): Promise<SavedIndex | string | undefined> {
  // Inside the repository it is read as any file of it is: a FIFO or a link to /dev/zero there must not hold
  // the build. Elsewhere (the user's cache directory) it is ours.
  const inside = file.startsWith(join(root, '.mcpkit'));
  const bytes = inside
    ? await repoFiles(root).read(file, { maxBytes: MAX_INDEX_BYTES, follow: true })
    : await readFile(file).catch(() => undefined);
  if (bytes === undefined) return undefined;
  try {
    return decode(bytes, file);
  } catch (error) {
    return error instanceof McpkitError ? error.message : `${file} is not an mcpkit search index`;
  }
}

function decode(bytes: Buffer, file: string): SavedIndex {
  const refuse = (why: string) => new McpkitError('INVALID_ARGUMENT', `${file} ${why}`);
  if (bytes.subarray(0, 8).toString('latin1') !== MAGIC) throw refuse('is not an mcpkit search index');
  const headerBytes = bytes.readUInt32LE(8);
  const header = JSON.parse(bytes.subarray(12, 12 + headerBytes).toString('utf8')) as Header;
  if (header.format !== FORMAT || header.chunker !== CHUNKER_VERSION)
    throw refuse('was written by another version of mcpkit');
  // Typed arrays need aligned offsets: the sections are 8-aligned in the file, the buffer maybe not in memory.
  const buffer = bytes.byteOffset % 8 === 0 ? bytes : Buffer.from(bytes);
  const base = 12 + headerBytes;
  const section = <T extends Typed>(
    name: string,
    make: new (b: ArrayBuffer, o: number, n: number) => T,
    size: number,
  ) => {
    const [offset, length] = header.sections[name] ?? refusal(name);
    return new make(buffer.buffer as ArrayBuffer, buffer.byteOffset + base + offset, length / size);
  };
  const refusal = (name: string): never => {
    throw refuse(`has no ${name} section`);
  };
  const text = (name: string) => {
    const [offset, length] = header.sections[name] ?? refusal(name);
    return buffer.subarray(base + offset, base + offset + length).toString('utf8');
  };
  const paths = header.files.map(([path]) => path);
  const docFile = section('docFile', Int32Array, 4);
  const docStart = section('docStart', Int32Array, 4);
  const docEnd = section('docEnd', Int32Array, 4);
  const docLanguage = section('docLanguage', Uint8Array, 1);
  const symbolLists = text('symbols').split('\u0000');
  const chunks: (ChunkPlace | undefined)[] = Array.from(docFile, (f, doc) =>
    f < 0
      ? undefined
      : {
          path: paths[f] as string,
          startLine: docStart[doc] as number,
          endLine: docEnd[doc] as number,
          language: header.languages[docLanguage[doc] as number] as string,
          symbols: symbolLists[doc] ? (symbolLists[doc] as string).split('\u0001') : [],
        },
  );
  const termsText = text('terms');
  const saved: SavedIndex = {
    files: new Map(header.files.map(([path, size, mtimeMs]) => [path, { size, mtimeMs }])),
    leftOut: new Map((header.leftOut ?? []).map(([path, size, mtimeMs]) => [path, { size, mtimeMs }])),
    chunks,
    bm25: {
      terms: termsText === '' ? [] : termsText.split('\n'),
      offsets: section('offsets', Int32Array, 4),
      docs: section('docs', Int32Array, 4),
      tfs: section('tfs', Uint16Array, 2),
      counts: section('counts', Uint16Array, 2),
      lengths: section('lengths', Float32Array, 4),
      alive: section('alive', Uint8Array, 1),
    },
  };
  if (header.dimensions > 0) {
    const modelTerms = text('modelTerms');
    saved.vectors = {
      rows: section('vectors', Int8Array, 1),
      model: {
        terms: modelTerms === '' ? [] : modelTerms.split('\n'),
        idf: section('idf', Float32Array, 4),
        basis: section('basis', Float32Array, 4),
        dimensions: header.dimensions,
      },
    };
  }
  return saved;
}

/**
 * Saves an index (atomically) and returns the file written. Inside a repository (the default file) the first save
 * also writes `.mcpkit/.gitignore` holding `*`, so the index (megabytes, machine-specific mtimes) is never
 * committed; a `.gitignore` already there is the user's and is left as it is.
 */
export async function saveIndex(
  root: string,
  index: SavedIndex,
  file = join(root, INDEX_FILE),
): Promise<string> {
  const inside = file === join(root, INDEX_FILE);
  const paths = [...index.files.keys()];
  const fileIds = new Map(paths.map((path, i) => [path, i]));
  const languages: string[] = [];
  const languageIds = new Map<string, number>();
  const n = index.chunks.length;
  const docFile = new Int32Array(n);
  const docStart = new Int32Array(n);
  const docEnd = new Int32Array(n);
  const docLanguage = new Uint8Array(n);
  const symbols: string[] = [];
  index.chunks.forEach((chunk, doc) => {
    const f = chunk ? fileIds.get(chunk.path) : undefined;
    if (!chunk || f === undefined) {
      docFile[doc] = -1;
      symbols.push('');
      return;
    }
    let language = languageIds.get(chunk.language);
    if (language === undefined) {
      language = languages.length;
      languages.push(chunk.language);
      languageIds.set(chunk.language, language);
    }
    docFile[doc] = f;
    docStart[doc] = chunk.startLine;
    docEnd[doc] = chunk.endLine;
    docLanguage[doc] = language;
    symbols.push(
      chunk.symbols.map((s) => s.replaceAll('\u0000', ' ').replaceAll('\u0001', ' ')).join('\u0001'),
    );
  });
  const sections: [string, Uint8Array][] = [];
  const add = (name: string, data: Typed | string) =>
    sections.push([
      name,
      typeof data === 'string'
        ? Buffer.from(data, 'utf8')
        : new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    ]);
  const { bm25 } = index;
  add('docFile', docFile);
  add('docStart', docStart);
  add('docEnd', docEnd);
  add('docLanguage', docLanguage);
  add('symbols', symbols.join('\u0000'));
  add('terms', bm25.terms.join('\n'));
  add('offsets', bm25.offsets);
  add('docs', bm25.docs);
  add('tfs', bm25.tfs);
  add('counts', bm25.counts);
  add('lengths', bm25.lengths);
  add('alive', bm25.alive);
  if (index.vectors) {
    add('vectors', index.vectors.rows);
    add('modelTerms', index.vectors.model.terms.join('\n'));
    add('idf', index.vectors.model.idf);
    add('basis', index.vectors.model.basis);
  }
  const parts: Uint8Array[] = [];
  const at: Header['sections'] = {};
  let offset = 0;
  for (const [name, data] of sections) {
    at[name] = [offset, data.byteLength];
    parts.push(data);
    offset += data.byteLength;
    const pad = (8 - (offset % 8)) % 8;
    if (pad) parts.push(new Uint8Array(pad));
    offset += pad;
  }
  const header: Header = {
    format: FORMAT,
    chunker: CHUNKER_VERSION,
    files: paths.map((path) => {
      const { size, mtimeMs } = index.files.get(path) as FileStamp;
      return [path, size, mtimeMs];
    }),
    leftOut: [...(index.leftOut ?? [])].map(([path, { size, mtimeMs }]) => [path, size, mtimeMs]),
    languages,
    dimensions: index.vectors?.model.dimensions ?? 0,
    sections: at,
  };
  let json = Buffer.from(JSON.stringify(header), 'utf8');
  // The sections start 8-aligned: pad the header with spaces (still JSON).
  const headPad = (8 - ((12 + json.byteLength) % 8)) % 8;
  if (headPad) json = Buffer.concat([json, Buffer.from(' '.repeat(headPad))]);
  const head = Buffer.alloc(12);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(json.byteLength, 8);
  if (inside) await refuseLinks(root, file);
  await writeFileAtomic(file, [head, json, ...parts]);
  if (inside) await ignoreEverythingIn(dirname(file));
  return file;
}

/**
 * The index is written inside the repository only: a `.mcpkit` or index file that is a symlink (a repository can
 * ship one, to `~/.bashrc` say) would have the write land wherever it points.
 */
async function refuseLinks(root: string, file: string): Promise<void> {
  for (const path of [join(root, dirname(INDEX_FILE)), file]) {
    if ((await lstat(path).catch(() => undefined))?.isSymbolicLink())
      throw new McpkitError(
        'IO',
        `cannot write ${file}: ${path} is a symbolic link and the index is written only inside the repository; remove the link and index again`,
        { file: path },
      );
  }
}

/** Writes `<dir>/.gitignore` with `*` unless one exists (`wx`: never over the user's own). */
async function ignoreEverythingIn(dir: string): Promise<void> {
  const file = join(dir, '.gitignore');
  try {
    await writeFile(file, '*\n', { flag: 'wx' });
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw new McpkitError('IO', `cannot write ${file}: ${(cause as Error).message}`, { cause, file });
  }
}
