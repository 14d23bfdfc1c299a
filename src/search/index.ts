// mcpkit/search — everything exported here is public API.

export { type Chunk, chunkFile } from './chunks/chunker.js';
export { describeReport, type IndexReport } from './chunks/file-chunks.js';
export { type LanguageSpec, languageOf } from './chunks/languages.js';
export {
  type BuildOptions,
  CodeIndex,
  SEARCH_MODES,
  type SearchHit,
  type SearchMode,
} from './code-index/code-index.js';
export type { DbSchemas, RefreshReport } from './db-schemas/db-schemas.js';
export { type DbEngine, type DbTarget, parseDbTarget } from './db-schemas/db-target.js';
export { looksBinary } from './files/text-sniff.js';
export { type WalkedFile, type WalkOptions, walk } from './files/walk.js';
export { type Bm25Document, type Bm25Hit, Bm25Index, type Bm25Options, topK } from './lexical/bm25.js';
export { synonymsOf } from './lexical/synonyms.js';
export { stem, type TokenizeOptions, tokenize } from './lexical/tokenize.js';
export { DEFAULT_RANKING, type RankingWeights } from './ranking/ranking.js';
export { formatResults, type ResultJson, resultsJson, shownScores } from './ranking/results.js';
export { createSearchServer, type SearchServer, type SearchServerOptions } from './server/search-server.js';
export { FindRelatedArgsSchema, SEARCH_TOOLS, SearchArgsSchema } from './server/search-tools.js';
export { cachedIndexFile, newestSavedIndex } from './stores/index-cache.js';
export { CorpusVectors, type CorpusVectorsOptions } from './vectors/corpus-vectors.js';
export { BUILTIN_MODEL, BUILTIN_MODEL_DIR, StaticModel } from './vectors/static-model.js';
