// Assembles the WebAssembly kernels of code search (src/search/vectors/kernels/*.wat) and prints each as the base64 that
// its .ts file ships inline. `node scripts/build-kernels.mjs`; test/search/int8-dots.test.ts checks they agree.
import { readFileSync } from 'node:fs';
import wabt from 'wabt';

/** The base64 of a .wat file's module (SIMD on). */
export async function assemble(file) {
  const tools = await wabt();
  const module = tools.parseWat(file, readFileSync(file, 'utf8'), { simd: true });
  return Buffer.from(module.toBinary({}).buffer).toString('base64');
}

if (import.meta.url === `file://${process.argv[1]}`)
  for (const name of ['int8-dots', 'sparse-dense'])
    process.stdout.write(
      `${name}: ${await assemble(new URL(`../src/search/vectors/kernels/${name}.wat`, import.meta.url).pathname)}\n`,
    );
