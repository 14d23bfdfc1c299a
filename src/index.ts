// mcpkit — everything exported here is public API. Each capability also has its own subpath
// (`mcpkit/config`, …) so an embedder loads only what it uses.

export * from './bridge/index.js';
export * from './check/index.js';
export * from './client/index.js';
export * from './config/index.js';
export * from './errors/index.js';
export * from './gateway/index.js';
export * from './registry/index.js';
export * from './search/index.js';
export * from './serve/index.js';
