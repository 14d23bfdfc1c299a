import type { StaticModel } from '../vectors/static-model.js';

/** Options for {@link CodeIndex.build}. */
export interface BuildOptions {
  /** Use the saved index where it still matches the files; default true. */
  saved?: boolean;
  /** Where the saved index is read (default `<root>/.mcpkit/search-index.bin`). */
  indexFile?: string;
  /** A static model (`--model DIR`): chunk vectors for the semantic and hybrid modes. */
  model?: StaticModel;
  /**
   * Without a model: `corpus` (default) learns vectors from the indexed code itself (latent semantic analysis,
   * {@link CorpusVectors}) for the semantic and hybrid modes before the build returns; `background` returns as
   * soon as bm25 is ready and learns them after ({@link CodeIndex.vectorsReady}); `none` indexes for bm25 only.
   */
  vectors?: 'corpus' | 'background' | 'none';
  /** Why a saved index was not (wholly) used, why nothing was indexed. */
  onWarning?: (message: string) => void;
  /** After each file: files done, files in all, chunks so far. */
  onProgress?: (done: number, total: number, chunks: number) => void;
  /**
   * The process's RSS, in MB, past which a build stops reading files and learns no vectors: it searches what it has
   * indexed, with one warning, instead of running out of memory; default 1,400 (`MCPKIT_SEARCH_MEMORY_MB`).
   */
  memoryLimitMb?: number;
  /**
   * Worker threads that read, parse and chunk files (0: all on the calling thread); default one per core, at most
   * 2, for a tree of 2,000 files or more.
   */
  workers?: number;
  /**
   * Write postings to a temporary file in segments while building and assemble them once at the end, instead of
   * merging them in memory as they grow: default for trees of 5,000 files or more; `{ every }` postings a segment.
   */
  spill?: boolean | { every: number };
  /**
   * How files with a grammar are cut: `outline` (default) finds their definitions by line patterns and brace or
   * indentation matching (outline.ts: ~5× cheaper per file than a parse, and as good on bench/search-quality.ts; a
   * file it cannot balance is parsed), `syntax` parses every file with tree-sitter.
   */
  chunking?: 'outline' | 'syntax';
}

/** Trees this large spill their postings while they are built ({@link BuildOptions.spill}). */
export const SPILL_FILES = 5000;

/** The memory budget of a build unless told otherwise (a 1.5 GB goal for the Linux kernel's 78k files). */
export const MEMORY_LIMIT_MB = 1400;
