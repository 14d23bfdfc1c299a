// Kept only for src/gateway/tool-search.ts (see bm25.ts beside it): synonyms live in lexical/synonyms.ts.
export { synonymsOf } from './lexical/synonyms.js';
