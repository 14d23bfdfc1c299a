// A shared code index in PostgreSQL: written by `mcpkit index --store`, searched by `mcpkit search-server --store`.
export { PgCodeIndex, type StoredRepo } from './pg-code-index.js';
export { PgStore } from './pg-store.js';
export { indexIntoStore, type StoreIndexOptions, type StoreIndexResult } from './store-indexer.js';
export { parseStoreUrl, type StoreTarget } from './store-url.js';
