// The tree-sitter grammars ship inside the package, gzipped (`assets/grammars/`, written at build time by
// scripts/grammars.mjs from the dev dependency @repomix/tree-sitter-wasms): only the grammars of languages the
// chunker knows, and 21 MB of WebAssembly is 1.8 MB gzipped. Nothing is downloaded at run time.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { McpkitError } from '../errors/index.js';

const unzip = promisify(gunzip);

/** `assets/grammars/` at the package root: two levels up from src/internal, dist/internal and the bundle in dist/bin. */
const GRAMMARS = new URL('../../assets/grammars/', import.meta.url);

/** The WebAssembly bytes of the grammar `tree-sitter-<grammar>.wasm` (e.g. `typescript`, `c_sharp`). */
export async function grammarBytes(grammar: string): Promise<Uint8Array> {
  const file = new URL(`tree-sitter-${grammar}.wasm.gz`, GRAMMARS);
  let packed: Buffer;
  try {
    packed = await readFile(file);
  } catch (cause) {
    throw new McpkitError(
      'IO',
      `the tree-sitter grammar ${fileURLToPath(file)} is missing (npm run build writes it in a checkout)`,
      { cause, file: fileURLToPath(file) },
    );
  }
  return new Uint8Array(await unzip(packed));
}
