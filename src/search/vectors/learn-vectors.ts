// Corpus vectors for an index of any size in bounded memory: above a sample's size the basis is learned from the
// postings of an even sample of the chunks only, and every chunk is then projected straight into int8 rows, a
// block of chunks at a time — never a float matrix of all the chunks, nor a weighted copy of all the postings.
import type { Bm25Parts } from '../lexical/bm25.js';
import { DocVectors } from './chunk-vectors.js';
import { type CorpusModel, CorpusVectors } from './corpus-vectors.js';
import { SparseDense } from './kernels/sparse-dense.js';

/** Above this many live chunks the basis is learned from an even sample of this many (as CorpusVectors does). */
const SAMPLE = 60_000;
/** Chunks projected at once: a block's float rows are this many × dimensions × 4 bytes. */
const BLOCK = 16_384;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Vectors learned from an index's postings: the model that encodes a query, and every chunk's int8 row. */
export async function learnVectors(
  parts: Bm25Parts,
  idOf: (term: string) => number | undefined,
  sample = SAMPLE,
): Promise<{ corpus: CorpusVectors; vectors: DocVectors }> {
  const documents = parts.lengths.length;
  let live = 0;
  for (let d = 0; d < documents; d++) if (parts.alive[d]) live++;
  if (live <= sample) {
    // Small enough to learn from every chunk at once, as the vectors always were.
    const terms = parts.terms.slice(0, parts.offsets.length - 1);
    const corpus = await CorpusVectors.fromPostings({ documents, ...parts, terms });
    const vectors = new DocVectors(corpus.dimensions);
    const k = corpus.dimensions;
    for (let doc = 0; doc < corpus.matrix.length / k; doc++)
      vectors.set(doc, corpus.matrix.subarray(doc * k, (doc + 1) * k));
    return { corpus: CorpusVectors.fromModel(corpus.model()), vectors };
  }
  const model = (await CorpusVectors.fromPostings(sampled(parts, live, sample))).model();
  await yieldToLoop();
  return { corpus: CorpusVectors.fromModel(model), vectors: await project(parts, model, idOf) };
}

/** The postings of an even sample of the live chunks, renumbered from 0. */
function sampled(
  parts: Bm25Parts,
  live: number,
  sample: number,
): Parameters<typeof CorpusVectors.fromPostings>[0] {
  const documents = parts.lengths.length;
  const rowOf = new Int32Array(documents).fill(-1);
  const every = live / sample;
  let rows = 0;
  let nextPick = 0;
  let seen = 0;
  for (let d = 0; d < documents; d++) {
    if (!parts.alive[d]) continue;
    if (seen++ >= nextPick) {
      rowOf[d] = rows++;
      nextPick += every;
    }
  }
  const terms = parts.offsets.length - 1;
  const offsets = new Int32Array(terms + 1);
  for (let t = 0; t < terms; t++) {
    let n = 0;
    for (let p = parts.offsets[t] as number; p < (parts.offsets[t + 1] as number); p++)
      if ((rowOf[parts.docs[p] as number] as number) >= 0) n++;
    offsets[t + 1] = (offsets[t] as number) + n;
  }
  const docs = new Int32Array(offsets[terms] as number);
  const counts = new Uint16Array(docs.length);
  for (let t = 0, at = 0; t < terms; t++)
    for (let p = parts.offsets[t] as number; p < (parts.offsets[t + 1] as number); p++) {
      const row = rowOf[parts.docs[p] as number] as number;
      if (row < 0) continue;
      docs[at] = row;
      counts[at++] = parts.counts[p] as number;
    }
  // The terms the postings cover (the index's own list grows if files change meanwhile).
  return { documents: rows, terms: parts.terms.slice(0, terms), offsets, docs, counts };
}

/**
 * Every live chunk's unit vector in the model's space — the weights {@link CorpusVectors.encode} gives a text,
 * log(1 + count) × idf of each vocabulary term — straight from the postings, a block of chunks at a time.
 */
async function project(
  parts: Bm25Parts,
  model: CorpusModel,
  idOf: (term: string) => number | undefined,
): Promise<DocVectors> {
  const k = model.dimensions;
  const documents = parts.lengths.length;
  const vocabulary = model.terms.map((term) => idOf(term) ?? -1);
  // Each vocabulary term's next posting: lists ascend by document, so the blocks take them in turn.
  const cursor = Int32Array.from(vocabulary, (t) => (t < 0 ? 0 : (parts.offsets[t] as number)));
  const vectors = new DocVectors(k, Math.max(1, documents));
  const basis = Float32Array.from(model.basis);
  const kernel = new SparseDense();
  for (let first = 0; first < documents; first += BLOCK) {
    const end = Math.min(documents, first + BLOCK);
    // The block's chunks by row (each chunk's vocabulary terms and weights), then one product with the basis.
    const starts = new Int32Array(end - first + 1);
    // Visits the block's postings; the last pass moves each term's cursor past them.
    const each = (visit: (doc: number, col: number, p: number) => void, advance = false) =>
      vocabulary.forEach((t, col) => {
        if (t < 0) return;
        const stop = parts.offsets[t + 1] as number;
        let p = cursor[col] as number;
        for (; p < stop; p++) {
          const doc = parts.docs[p] as number;
          if (doc >= end) break;
          if (parts.alive[doc]) visit(doc, col, p);
        }
        if (advance) cursor[col] = p;
      });
    each((doc) => {
      starts[doc - first + 1] = (starts[doc - first + 1] as number) + 1;
    });
    for (let r = 0; r < end - first; r++) starts[r + 1] = (starts[r + 1] as number) + (starts[r] as number);
    const fill = starts.slice(0, end - first);
    const cols = new Int32Array(starts[end - first] as number);
    const values = new Float32Array(cols.length);
    each((doc, col, p) => {
      const at = fill[doc - first] as number;
      fill[doc - first] = at + 1;
      cols[at] = col;
      values[at] = Math.log1p(parts.counts[p] as number) * (model.idf[col] as number);
    }, true);
    const block = kernel.multiply({ starts, cols, values }, basis, k);
    for (let doc = first; doc < end; doc++) {
      const row = block.subarray((doc - first) * k, (doc - first + 1) * k);
      let norm = 0;
      for (let j = 0; j < k; j++) norm += (row[j] as number) ** 2;
      norm = Math.sqrt(norm) || 1;
      for (let j = 0; j < k; j++) row[j] = (row[j] as number) / norm;
      vectors.set(doc, row);
    }
    await yieldToLoop();
  }
  return vectors;
}
