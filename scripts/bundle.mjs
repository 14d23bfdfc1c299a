// Bundles the `mcpkit` executable into dist/bin/: one minified module per command group (loaded only when
// that command runs) plus shared chunks. Node's ESM loader pays per module; the tsc output is ~150 modules
// with the dependencies, the bundle a few, which takes `mcpkit bridge` from ~155 ms to ~115 ms to start
// (bench/bridge.ts (b)). The library (`mcpkit/…` imports) stays the tsc output in dist/.
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { build } from 'esbuild';

// Chunk names carry content hashes: old ones would pile up.
rmSync('dist/bin', { recursive: true, force: true });

// zod's classic API exports every locale's messages (`z.locales`, 264 KB of the 454 KB zod puts in the bundle, parsed
// by every command that reads a config: `mcpkit list` included); mcpkit speaks English only and never reads
// `z.locales`, so the bundle carries `en`, the one zod sets up itself. The library (tsc output) imports zod as it is.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: dirname(args.path),
    }));
  },
};

await build({
  // The index build's worker threads load their module by name, beside the chunk that starts them.
  entryPoints: { main: 'src/cli/main.ts', 'chunk-worker': 'src/search/lexical/chunk-worker.ts' },
  outdir: 'dist/bin',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  // ES module builds first: jsonc-parser's default entry is a UMD wrapper whose require()s a bundler cannot follow.
  mainFields: ['module', 'main'],
  target: 'node20',
  minify: true,
  sourcemap: 'linked',
  // CommonJS dependencies (ajv, …) call require(); an ES module has none of its own.
  banner: {
    js: "import { createRequire as __mcpkitRequire } from 'node:module'; const require = __mcpkitRequire(import.meta.url);",
  },
  // Loads its own tree-sitter.wasm next to its module file. The database drivers (code search's --db) load only
  // when a --db needs them, from node_modules as they ship: sql.js finds its .wasm beside its own module.
  external: ['web-tree-sitter', 'pg', 'mysql2', 'sql.js', 'redis'],
  plugins: [zodEnglishOnly],
  logLevel: 'warning',
});
