// Copies the tree-sitter grammars the chunker uses (the `grammar:` names in src/search/chunks/languages.ts) from the dev
// dependency @repomix/tree-sitter-wasms into assets/grammars/, gzipped: the package ships 13 grammars in ~1.8 MB
// instead of a dependency of 23 MB (all 17 of its grammars, uncompressed). src/internal/grammar-file.ts reads them.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';

const require = createRequire(import.meta.url);
const source = readFileSync(new URL('../src/search/chunks/languages.ts', import.meta.url), 'utf8');
const grammars = [...new Set([...source.matchAll(/\bgrammar: '([\w-]+)'/gu)].map((m) => m[1]))].sort();
if (grammars.length === 0)
  throw new Error('scripts/grammars.mjs: no `grammar:` names found in src/search/chunks/languages.ts');

const out = new URL('../assets/grammars/', import.meta.url);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const grammar of grammars) {
  const bytes = readFileSync(require.resolve(`@repomix/tree-sitter-wasms/out/tree-sitter-${grammar}.wasm`));
  // Level 9 with a fixed header (no time stamp): the same grammar gives the same file on every build.
  const gz = gzipSync(bytes, { level: 9 });
  writeFileSync(new URL(`tree-sitter-${grammar}.wasm.gz`, out), gz);
}
