import { join } from 'node:path';
import { mapConcurrent } from '../../internal/concurrency.js';
import { type RepoFiles, repoFiles } from '../files/repo-file.js';
import { looksBinary } from '../files/text-sniff.js';
import { type FileStamp, MAX_BYTES, type WalkedFile } from '../files/walk.js';
import { type Chunk, chunkFile } from './chunker.js';

/**
 * What became of one file: its chunks (`windowed` when its language has a grammar but it was cut in line
 * windows: lines too long, parse over budget), or why it has none (not readable as a regular file inside the
 * repository, or not text).
 */
export type FileOutcome =
  | { chunks: Chunk[]; windowed: boolean }
  | { skipped: 'unreadable' | 'not text' | 'long lines' };

/**
 * Lines this long on average are machine-made — base64 blobs (undici's `llhttp-wasm.js`), bundles, minified code
 * without `.min` in its name — and worth nothing to search, while high-entropy text costs the index several
 * times its size in terms: such a file is left out, as the walk leaves out minified files by name.
 */
const MAX_MEAN_LINE = 1000;

/**
 * The one way a walked file becomes chunks, at build and when it changes while the index is live: read through
 * {@link repoFiles} (a regular file inside the repository, nothing else), left out when it is binary
 * ({@link looksBinary}) or machine-made (lines over 1,000 characters on average), cut at syntax unless it is
 * build output of an indexed TypeScript source (line windows: it ranks low anyway, and a parse costs zod 40% of
 * its index time).
 */
export async function chunksOf(
  reader: RepoFiles,
  file: WalkedFile,
  buildOutput: boolean,
  /** Cut at an outline instead of a parse where the language has one (chunker.ts's `outline` option). */
  outline = true,
): Promise<FileOutcome> {
  const bytes = await reader.read(join(reader.root, file.path), { maxBytes: MAX_BYTES });
  if (bytes === undefined) return { skipped: 'unreadable' };
  const text = bytes.toString('utf8');
  if (looksBinary(text)) return { skipped: 'not text' };
  if (text.length > MAX_MEAN_LINE * lineCount(text)) return { skipped: 'long lines' };
  let windowed = false;
  const chunks = await chunkFile(file.path, text, {
    syntax: !buildOutput,
    outline,
    onLineWindows: () => {
      windowed = true;
    },
  });
  return { chunks, windowed };
}

/** Lines in a text, counted without splitting it (the file may be a megabyte of one line). */
function lineCount(text: string): number {
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}

/** The size and mtime a file's chunks are made from (what decides whether saved chunks are still good). */
export const stampOf = (file: WalkedFile): FileStamp => ({ size: file.size, mtimeMs: file.mtimeMs });

/** Files an index build left out or could not parse, by cause (the hostile-content guards at work). */
export interface IndexReport {
  /** Walked files left out as not text ({@link looksBinary}). */
  notText: number;
  /** Walked files left out for lines over 1,000 characters on average (machine-made text). */
  longLines: number;
  /** Files of a language with a grammar cut in line windows: lines too long, or the parse over its budget. */
  windowed: number;
  /** Worker threads that chunked files to the end (0: all on the building thread). */
  workers?: number;
  /** Workers started in place of others whose heap grew large or that died. */
  workerRestarts?: number;
}

/** What an index left out or cut coarsely, in words (`3 left out as not text, …`); empty when nothing was. */
export function describeReport(report: IndexReport): string {
  const { notText, longLines, windowed } = report;
  return [
    notText ? `${notText} left out as not text` : '',
    longLines ? `${longLines} left out for lines over 1,000 characters` : '',
    windowed ? `${windowed} cut in line windows (lines too long or parse over budget)` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

/** Counts a file left out in the report (an unreadable one is not counted: it was never a file to index). */
export function countSkipped(report: IndexReport, skipped: 'unreadable' | 'not text' | 'long lines'): void {
  if (skipped === 'not text') report.notText++;
  else if (skipped === 'long lines') report.longLines++;
}

/**
 * Hands each file's result to `commit` in the walker's order, whatever order they finish in (a file finished early
 * waits for those before it), so an index built from them numbers its chunks as a fresh build always does.
 */
export class InWalkOrder<T> {
  private readonly waiting = new Map<number, T | undefined>();
  private next = 0;

  constructor(
    private readonly files: readonly WalkedFile[],
    private readonly commit: (file: WalkedFile, result: T | undefined) => void,
  ) {}

  /** Results finished but waiting for an earlier file. */
  get held(): number {
    return this.waiting.size;
  }

  /** The result of the file at `seq` (undefined: left out); commits every result now in order. */
  settle(seq: number, result: T | undefined): void {
    this.waiting.set(seq, result);
    while (this.waiting.has(this.next)) {
      const ready = this.waiting.get(this.next);
      this.waiting.delete(this.next);
      this.commit(this.files[this.next] as WalkedFile, ready);
      this.next++;
    }
  }
}

/** Files read and chunked at once while indexing: reads overlap the chunking of files already read. */
const CONCURRENCY = 64;

/**
 * Chunks every walked file ({@link chunksOf}) and hands each file's chunks to `commit` in the walker's order (a
 * file chunked early waits for those before it), so an index built from them numbers its chunks as a fresh build
 * always does (the shared store's indexer wants whole chunks, not the counted terms `chunkFiles` sends from
 * workers), and can be searched at any moment for the files committed so far. Nothing is held once committed.
 * Returns what was left out.
 */
export async function chunkAll(
  root: string,
  files: readonly WalkedFile[],
  twins: ReadonlySet<string>,
  commit: (file: WalkedFile, chunks: Chunk[] | undefined) => void,
  /** Asked before each file is read: true leaves the rest unread (a memory budget reached). */
  stop: () => boolean = () => false,
): Promise<IndexReport> {
  const report: IndexReport = { notText: 0, longLines: 0, windowed: 0 };
  const reader = repoFiles(root);
  const ordered = new InWalkOrder(files, commit);
  await mapConcurrent(files, CONCURRENCY, async (file, i) => {
    if (stop()) return;
    const outcome = await chunksOf(reader, file, twins.has(file.path));
    let chunks: Chunk[] | undefined;
    if ('chunks' in outcome) {
      chunks = outcome.chunks;
      if (outcome.windowed) report.windowed++;
    } else countSkipped(report, outcome.skipped);
    ordered.settle(i, chunks);
  });
  return report;
}
