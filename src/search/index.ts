// mcpkit/search — everything exported here is public API.
export { type Bm25Document, type Bm25Hit, Bm25Index, type Bm25Options, topK } from './bm25.js';
export { type Chunk, chunkFile } from './chunker.js';
export { type BuildOptions, CodeIndex, SEARCH_MODES, type SearchHit, type SearchMode } from './code-index.js';
export { CorpusVectors, type CorpusVectorsOptions } from './corpus-vectors.js';
export type { DbSchemas, RefreshReport } from './db/db-schemas.js';
export { type DbEngine, type DbTarget, parseDbTarget } from './db/db-target.js';
export { describeReport, type IndexReport } from './file-chunks.js';
export { cachedIndexFile, newestSavedIndex } from './index-cache.js';
export { type LanguageSpec, languageOf } from './languages.js';
export { DEFAULT_RANKING, type RankingWeights } from './ranking.js';
export { formatResults, type ResultJson, resultsJson, shownScores } from './results.js';
export { createSearchServer, type SearchServer, type SearchServerOptions } from './search-server.js';
export { FindRelatedArgsSchema, SEARCH_TOOLS, SearchArgsSchema } from './search-tools.js';
export { BUILTIN_MODEL, BUILTIN_MODEL_DIR, StaticModel } from './static-model.js';
export { synonymsOf } from './synonyms.js';
export { looksBinary } from './text-sniff.js';
export { stem, type TokenizeOptions, tokenize } from './tokenize.js';
export { type WalkedFile, type WalkOptions, walk } from './walk.js';
