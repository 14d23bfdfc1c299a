import type { Chunk } from '../chunks/chunker.js';
import type { SearchHit } from './ranking.js';

/** How a search ranks: `hybrid` (bm25 and cosine mixed), `semantic` (cosine of vectors) or `bm25` (keywords). */
type Mode = 'hybrid' | 'semantic' | 'bm25';

/**
 * What the search tools ask of an index: the seam between them and where the index lives. {@link CodeIndex}
 * answers from memory (synchronously); an index in PostgreSQL (`--store`, src/search/stores/pg/) answers with
 * promises. The tools await every answer, so either serves.
 */
export interface SearchableIndex {
  /** The indexed directory (a `file_path` given as an absolute path is made relative to it). */
  readonly root: string;
  /** Whether semantic and hybrid modes have vectors to use. */
  readonly hasVectors: boolean;
  /** Settles when vectors learned in the background are there. */
  vectorsReady(): Promise<void>;
  /** The best `limit` chunks for a query, ranked in `mode`. */
  search(query: string, limit?: number, mode?: Mode): SearchHit[] | Promise<SearchHit[]>;
  /** The chunk that holds a line of a file. */
  chunkAt(path: string, line: number): Chunk | undefined | Promise<Chunk | undefined>;
  /** Whether a file is in the index. */
  hasFile(path: string): boolean | Promise<boolean>;
  /** Chunks like the one given (a chunk from {@link chunkAt} of this index), itself left out. */
  findRelated(chunk: Chunk, limit?: number): SearchHit[] | Promise<SearchHit[]>;
}
