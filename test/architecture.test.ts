import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Dependencies flow one way: cli → capabilities (client, bridge, search, gateway, check) → config, serve,
 * errors, internal → SDK. This walks every relative import under src/ and fails on an arrow the other way.
 */
const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const LAYER: Record<string, number> = {
  cli: 4,
  client: 3,
  bridge: 3,
  search: 3,
  gateway: 3,
  check: 3,
  registry: 3,
  config: 2,
  serve: 2,
  internal: 1,
  errors: 0,
};
// Within the capability layer a few arrows are allowed by design.
const ALLOWED = new Set(['gateway->client', 'check->client', 'gateway->search']);

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) =>
      e.isDirectory() ? sourceFiles(join(dir, e.name)) : Promise.resolve([join(dir, e.name)]),
    ),
  );
  return nested.flat().filter((f) => f.endsWith('.ts'));
}

const area = (file: string) => relative(SRC, file).split('/')[0] ?? '';

describe('layering', () => {
  it('has no import against the flow of dependencies', async () => {
    const wrong: string[] = [];
    for (const file of await sourceFiles(SRC)) {
      const from = area(file);
      const text = await readFile(file, 'utf8');
      for (const match of text.matchAll(/from\s+'(\.[^']+)'/g)) {
        const to = area(resolve(dirname(file), match[1] as string));
        if (from === to || from === 'index.ts' || !(from in LAYER) || !(to in LAYER)) continue;
        const fromLayer = LAYER[from] as number;
        const toLayer = LAYER[to] as number;
        const sideways = fromLayer === toLayer && !ALLOWED.has(`${from}->${to}`);
        if (toLayer > fromLayer || sideways) wrong.push(`${relative(SRC, file)} imports ${match[1]}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('keeps internal/ out of the package exports', async () => {
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
    const subpaths = Object.keys(pkg.exports);
    expect(subpaths.some((p) => p.includes('internal') || p.includes('*'))).toBe(false);
  });
});
