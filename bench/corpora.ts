// Where the code-search benchmarks find the source trees they index: bench/corpora/node_modules, pinned by
// bench/corpora/package-lock.json and installed on demand (`npm run bench:corpora`, which `npm run bench` runs
// first). They live outside the project's own install because node-gyp's tree wants Node 22, and a newcomer's
// `npm ci` should not warn about packages only a benchmark reads.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The corpora's node_modules/ (with a trailing slash); exits with what to run when they are not installed. */
export function corporaModules(names: readonly string[]): string {
  const modules = fileURLToPath(new URL('./corpora/node_modules/', import.meta.url));
  const missing = names.filter((name) => !existsSync(join(modules, name, 'package.json')));
  if (missing.length > 0) {
    console.error(`bench corpora not installed (${missing.join(', ')}): run \`npm run bench:corpora\` first`);
    process.exit(1);
  }
  return modules;
}
