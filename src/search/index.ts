// mcpkit/search — everything exported here is public API.
export { type Bm25Document, type Bm25Hit, Bm25Index, type Bm25Options, topK } from './bm25.js';
export { synonymsOf } from './synonyms.js';
export { stem, type TokenizeOptions, tokenize } from './tokenize.js';
