// Where tree-sitter and its grammars are found and how they are loaded: the one file that knows the .wasm files'
// location (web-tree-sitter's runtime; the grammars shipped gzipped in assets/grammars/, read by internal/grammar-file.ts), so a change of where they ship is
// made here alone.
import { createRequire } from 'node:module';
import type { Language, Parser } from 'web-tree-sitter';
import { grammarBytes } from '../../internal/grammar-file.js';

const require = createRequire(import.meta.url);
let parser: Promise<Parser> | undefined;
const languages = new Map<string, Promise<Language>>();

/**
 * The shared parser and a grammar, loaded once each. The caller sets the language and parses in one
 * synchronous step: concurrent chunkFile calls share the parser, and an await between the two would let
 * another call switch its language.
 */
export async function grammarFor(grammar: string): Promise<{ parser: Parser; language: Language }> {
  parser ??= (async () => {
    const { Parser } = await import('web-tree-sitter');
    await Parser.init({ locateFile: () => require.resolve('web-tree-sitter/tree-sitter.wasm') });
    return new Parser();
  })();
  // Grammars load only once the runtime is initialised.
  const ready = await parser;
  let language = languages.get(grammar);
  if (!language) {
    language = import('web-tree-sitter').then(async ({ Language }) =>
      Language.load(await grammarBytes(grammar)),
    );
    languages.set(grammar, language);
  }
  return { parser: ready, language: await language };
}
