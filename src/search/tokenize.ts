// Kept only for src/gateway/tool-search.ts (see bm25.ts beside it): the tokenizer lives in lexical/tokenize.ts.
export { tokenize } from './lexical/tokenize.js';
