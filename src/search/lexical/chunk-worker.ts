// A worker thread of an index build (chunk-pool.ts): reads, parses, chunks and counts the files it is sent, each
// with the main thread's checks and code, and sends back typed arrays (moved, not copied).
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { chunksOf } from '../chunks/file-chunks.js';
import { repoFiles } from '../files/repo-file.js';
import type { ChunkJob, ChunkResult } from './chunk-pool.js';
import { TermEncoder, transferables } from './file-terms.js';

const { root, withTexts } = workerData as { root: string; withTexts: boolean };
const reader = repoFiles(root);
const encoder = new TermEncoder(withTexts);
const port = parentPort;

port?.on('message', async ({ seq, file, buildOutput, outline }: ChunkJob) => {
  let result: ChunkResult;
  try {
    const outcome = await chunksOf(reader, file, buildOutput, outline);
    if (!('chunks' in outcome)) result = { seq, skipped: outcome.skipped };
    else {
      // Counted and posted in one synchronous step: batches reach the main thread in the order they were counted.
      const terms = encoder.encode(outcome.chunks);
      const { used_heap_size, external_memory } = getHeapStatistics();
      const heapMb = (used_heap_size + external_memory) / 1048576;
      port.postMessage(
        { seq, terms, windowed: outcome.windowed, heapMb } satisfies ChunkResult,
        transferables(terms),
      );
      return;
    }
  } catch (error) {
    result = { seq, failed: (error as Error).message };
  }
  port.postMessage(result);
});
