// Reading, parsing, chunking and counting the terms of many files — most of an index build's time — spread over
// worker threads (chunk-worker.ts), each with its own tree-sitter; the main thread only adds the counted terms to
// the index, in the walker's order. On a small tree, or where a worker cannot start, the same work runs here.
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { mapConcurrent } from '../../internal/concurrency.js';
import {
  chunksOf,
  countSkipped,
  type FileOutcome,
  type IndexReport,
  InWalkOrder,
} from '../chunks/file-chunks.js';
import { repoFiles } from '../files/repo-file.js';
import type { WalkedFile } from '../files/walk.js';
import { EncoderTerms, type FileTerms, TermEncoder } from './file-terms.js';

/** A file for a worker: where it is, and whether it is build output (cut in line windows). */
export interface ChunkJob {
  seq: number;
  file: WalkedFile;
  buildOutput: boolean;
  /** Cut at an outline instead of a parse ({@link ChunkFilesOptions.outline}). */
  outline: boolean;
}

/** What a worker sends back for a job. */
export type ChunkResult =
  | { seq: number; terms: FileTerms; windowed: boolean; heapMb?: number }
  | { seq: number; skipped: Exclude<FileOutcome, { chunks: unknown }>['skipped'] }
  | { seq: number; failed: string };

/** Options for {@link chunkFiles}. */
export interface ChunkFilesOptions {
  /** Worker threads (0: all on this thread); default {@link defaultWorkers}. */
  workers?: number;
  /** Send each chunk's text too (a static model encodes it). */
  withTexts?: boolean;
  /** Asked before each file is started: true leaves the rest unread (a memory budget reached). */
  stop?: () => boolean;
  /** A worker whose heap passes this many MB is replaced; default 192. */
  retireMb?: number;
  /** Cut files at an outline (outline.ts) instead of a parse where their language has one; default true. */
  outline?: boolean;
}

/** A file's counted chunks, with what turns their term ids into the index's ({@link EncoderTerms.resolve}). */
export interface CountedFile {
  file: WalkedFile;
  terms: FileTerms;
  table: EncoderTerms;
}

/**
 * Below this many files a build stays on one thread. Measured once files were cut at their outline instead of
 * parsed (the per-file work shrank 3x): two workers cost ~1 s more CPU than they save on 1,176 files (2.0 s vs 1.0 s
 * of CPU) and ~45 % more CPU on 3,102 (7.3 s vs 5.0 s: starting, messages, each worker's own term table) — which two
 * cores still turn into a shorter build from a few thousand files on, and a longer one on a loaded machine.
 */
const WORKER_MIN_FILES = 2000;
/** Files read or parsed at once per worker (reads overlap parses), and on this thread without workers. */
const DEPTH = 8;
const LOCAL_CONCURRENCY = 64;
/** Files finished but waiting for an earlier slow one: no more are started past this (memory stays bounded). */
const MAX_WAITING = 512;

/** A worker's young generation, in MB (V8 gives a thread up to 32 by default). */
const WORKER_YOUNG_MB = 16;
/** A worker past this much old generation dies (and is replaced, its files chunked again): never the process. */
const WORKER_OLD_MB = 512;

/** A worker whose heap (V8's and its buffers, tree-sitter's memory among them) passes this many MB is replaced. */
const RETIRE_MB = 192;
/** Workers started in place of others in one build, at most (past that, the ones left carry on). */
const MAX_REPLACEMENTS = 64;

/** Worker threads for a tree of this many files: one per core, at most 2 (measured: more only add memory). */
export function defaultWorkers(files: number): number {
  return files < WORKER_MIN_FILES ? 0 : Math.max(1, Math.min(2, availableParallelism()));
}

/**
 * Chunks and counts every walked file ({@link chunksOf}, {@link TermEncoder}) and hands each to `commit` in the
 * walker's order (a file finished early waits for those before it; `undefined` for a file left out), so an index
 * built from them numbers chunks and terms as a one-thread build does, and can be searched at any moment for the
 * files committed so far. Returns what was left out.
 */
export async function chunkFiles(
  root: string,
  files: readonly WalkedFile[],
  twins: ReadonlySet<string>,
  commit: (file: WalkedFile, counted: CountedFile | undefined) => void,
  options: ChunkFilesOptions = {},
): Promise<IndexReport> {
  const report: IndexReport = { notText: 0, longLines: 0, windowed: 0 };
  const stop = options.stop ?? (() => false);
  const ordered = new InWalkOrder<CountedFile>(files, commit);
  const settle = (seq: number, result: ChunkResult, table: EncoderTerms | undefined) => {
    const file = files[seq] as WalkedFile;
    let counted: CountedFile | undefined;
    if ('terms' in result) {
      counted = { file, terms: result.terms, table: table as EncoderTerms };
      if (result.windowed) report.windowed++;
    } else if ('skipped' in result) countSkipped(report, result.skipped);
    ordered.settle(seq, counted);
  };
  const job = (seq: number): ChunkJob => {
    const file = files[seq] as WalkedFile;
    return { seq, file, buildOutput: twins.has(file.path), outline: options.outline ?? true };
  };
  const withTexts = options.withTexts ?? false;
  const retireMb = options.retireMb ?? RETIRE_MB;
  const local = localChunker(root, withTexts);
  const workers = options.workers ?? defaultWorkers(files.length);
  const started = workers > 0 ? startWorkers(root, workers, withTexts, retireMb) : [];
  if (started.length === 0) {
    await mapConcurrent(files, LOCAL_CONCURRENCY, async (_, seq) => {
      if (stop()) return;
      const { result, table } = await local(job(seq));
      settle(seq, result, table);
    });
    return report;
  }
  let dispatched = 0;
  const pool = [...started];
  let replacements = 0;
  try {
    await new Promise<void>((done, fail) => {
      let inFlight = 0;
      const finish = (result: ChunkResult, table: EncoderTerms | undefined) => {
        inFlight--;
        try {
          settle(result.seq, result, table);
        } catch (error) {
          fail(error);
          return;
        }
        pump();
      };
      const attach = (worker: PoolWorker) =>
        worker.listen(finish, (lost) => {
          // A worker that died: its files are chunked here, and another takes its place.
          for (const seq of lost) local(job(seq)).then(({ result, table }) => finish(result, table), fail);
          replace(worker);
        });
      // A worker whose heap grew large (a tree's rare huge files leave V8 and tree-sitter holding their peak) is
      // closed once its files are answered, and a fresh one takes its place: the process's memory stays bounded.
      const replace = (worker: PoolWorker) => {
        const at = pool.indexOf(worker);
        if (at < 0) return;
        void worker.close();
        const [fresh] = replacements++ < MAX_REPLACEMENTS ? startWorkers(root, 1, withTexts, retireMb) : [];
        if (fresh) {
          pool[at] = fresh;
          attach(fresh);
        } else pool.splice(at, 1);
      };
      const pump = () => {
        for (const worker of [...pool]) {
          if (worker.retiring && worker.pending.size === 0) replace(worker);
        }
        for (const worker of pool)
          while (
            worker.alive &&
            !worker.retiring &&
            worker.pending.size < DEPTH &&
            dispatched < files.length &&
            ordered.held < MAX_WAITING &&
            !stop()
          ) {
            const seq = dispatched++;
            inFlight++;
            worker.send(job(seq));
          }
        if (inFlight > 0) return;
        if (dispatched === files.length || stop()) done();
        else if (pool.every((w) => !w.alive || w.retiring)) {
          // No worker to take files: the rest runs here, one at a time.
          const seq = dispatched++;
          inFlight++;
          local(job(seq)).then(({ result, table }) => finish(result, table), fail);
        }
      };
      for (const worker of pool) attach(worker);
      pump();
    });
    report.workers = pool.filter((worker) => worker.alive).length;
    report.workerRestarts = replacements;
  } finally {
    await Promise.all([...started, ...pool].map((worker) => worker.close()));
  }
  return report;
}

/** Chunks one job on this thread: the same steps a worker takes. */
function localChunker(
  root: string,
  withTexts: boolean,
): (job: ChunkJob) => Promise<{ result: ChunkResult; table: EncoderTerms | undefined }> {
  const reader = repoFiles(root);
  const encoder = new TermEncoder(withTexts);
  let table = new EncoderTerms();
  return async ({ seq, file, buildOutput, outline }) => {
    const outcome = await chunksOf(reader, file, buildOutput, outline);
    if (!('chunks' in outcome)) return { result: { seq, skipped: outcome.skipped }, table: undefined };
    const terms = encoder.encode(outcome.chunks);
    table = table.take(terms);
    return { result: { seq, terms, windowed: outcome.windowed }, table };
  };
}

/** One worker thread and the jobs it has not answered. */
interface PoolWorker {
  alive: boolean;
  /** Its heap grew past {@link RETIRE_MB}: it gets no more files. */
  retiring: boolean;
  pending: Set<number>;
  send(job: ChunkJob): void;
  listen(
    onResult: (result: ChunkResult, table: EncoderTerms | undefined) => void,
    onLost: (seqs: number[]) => void,
  ): void;
  close(): Promise<void>;
}

/**
 * The worker's module, beside this one: as built (dist/), or as TypeScript when this runs from the sources under
 * tsx (tests, benchmarks), where the worker registers tsx's loader before importing it (`--import tsx` reaches a
 * worker's first module too late on Node 20).
 */
function workerModule(): { module: URL | string; eval: boolean } {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return { module: new URL('./chunk-worker.js', here), eval: false };
  // tsx's ES module entry (its `import` export); the CommonJS one cannot register from a worker.
  const tsx = pathToFileURL(createRequire(here).resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs');
  const worker = new URL('./chunk-worker.ts', here).href;
  return {
    module: `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(worker)}); });`,
    eval: true,
  };
}

function startWorkers(root: string, count: number, withTexts: boolean, retireMb: number): PoolWorker[] {
  const { module, eval: isCode } = workerModule();
  const out: PoolWorker[] = [];
  for (let i = 0; i < count; i++) {
    let worker: Worker;
    try {
      worker = new Worker(module, {
        workerData: { root, withTexts },
        eval: isCode,
        // A bounded young generation: a worker's garbage is per file and short-lived, and each worker's heap adds to
        // the process's memory (JDK tree: 2 × ~110 MB of heap with V8's default, for 66 MB live). Measured on the
        // JDK tree once files were no longer parsed: 8 MB spent 6 s of each worker's CPU in scavenges, 16 MB 3 s
        // (peak RSS 667 MB), 32 MB 1.9 s (710 MB).
        resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB, maxOldGenerationSizeMb: WORKER_OLD_MB },
      });
    } catch {
      break;
    }
    // An idle worker must not keep the process alive (a build that failed half-way).
    worker.unref();
    let table = new EncoderTerms();
    const pool: PoolWorker = {
      alive: true,
      retiring: false,
      pending: new Set(),
      send(job) {
        pool.pending.add(job.seq);
        worker.postMessage(job);
      },
      listen(onResult, onLost) {
        worker.on('message', (result: ChunkResult) => {
          pool.pending.delete(result.seq);
          // A file the worker could not chunk (a bug, not a bad file: those are skipped) is chunked here.
          if ('failed' in result) return onLost([result.seq]);
          if ('terms' in result) table = table.take(result.terms);
          if ('heapMb' in result && (result.heapMb ?? 0) > retireMb) pool.retiring = true;
          onResult(result, 'terms' in result ? table : undefined);
        });
        const lose = () => {
          if (!pool.alive) return;
          pool.alive = false;
          const lost = [...pool.pending];
          pool.pending.clear();
          onLost(lost);
        };
        worker.on('error', lose);
        worker.on('exit', lose);
      },
      async close() {
        pool.alive = false;
        await worker.terminate();
      },
    };
    out.push(pool);
  }
  return out;
}
