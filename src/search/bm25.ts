// Kept only for src/gateway/tool-search.ts, which imports this path (outside this change): BM25 lives in
// lexical/bm25.ts. Merger: point tool-search.ts at '../search/index.js' and delete this file and its two twins.
export { Bm25Index, topK } from './lexical/bm25.js';
