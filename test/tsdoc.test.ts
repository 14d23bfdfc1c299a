import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every name a subpath exports is public API and carries a TSDoc comment where it is declared. This reads each
 * capability's `index.ts`, follows `export { … } from './x.js'` to the declaration and looks for the `/** … *\/`
 * block right above it (decorators and `export` keywords aside).
 */
const SRC = fileURLToPath(new URL('../src/', import.meta.url));

interface Missing {
  name: string;
  file: string;
}

async function barrels(): Promise<string[]> {
  const entries = await readdir(SRC, { withFileTypes: true });
  const files = entries.filter((e) => e.isDirectory()).map((e) => join(SRC, e.name, 'index.ts'));
  const present = await Promise.all(
    files.map((file) =>
      readFile(file, 'utf8').then(
        () => file,
        () => undefined,
      ),
    ),
  );
  return present.filter((file): file is string => file !== undefined && !file.includes('/internal/'));
}

/** `export { a, type B as C } from './x.js'` → [['a','a'], ['B','C']] with the module path. */
function reExports(text: string): { names: string[]; from: string }[] {
  const out: { names: string[]; from: string }[] = [];
  for (const match of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'([^']+)'/g)) {
    const names = (match[1] ?? '')
      .split(',')
      .map((part) =>
        part
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0]
          ?.trim(),
      )
      .filter((name): name is string => !!name);
    out.push({ names, from: match[2] ?? '' });
  }
  return out;
}

function hasDoc(text: string, name: string): boolean | undefined {
  const declaration = new RegExp(
    `^export\\s+(?:declare\\s+)?(?:default\\s+)?(?:abstract\\s+)?(?:async\\s+)?(?:function\\*?|class|interface|type|const|let|enum)\\s+${name}\\b`,
    'm',
  );
  const match = declaration.exec(text);
  if (!match) return undefined;
  const before = text.slice(0, match.index).trimEnd();
  // The block right above: it ends here, and its `/**` opens after any earlier block's end.
  return before.endsWith('*/') && before.lastIndexOf('/**') > before.lastIndexOf('*/', before.length - 3);
}

async function missingDocs(): Promise<Missing[]> {
  const missing: Missing[] = [];
  for (const barrel of await barrels()) {
    const text = await readFile(barrel, 'utf8');
    for (const { names, from } of reExports(text)) {
      const target = resolve(dirname(barrel), from.replace(/\.js$/, '.ts'));
      const source = await readFile(target, 'utf8');
      for (const name of names) {
        const documented = hasDoc(source, name);
        // A name declared elsewhere (re-exported twice) is checked where it is declared, by its own barrel.
        if (documented === false) missing.push({ name, file: relative(SRC, target) });
      }
    }
  }
  return missing;
}

describe('public API docs', () => {
  it('has a TSDoc comment on every exported declaration', async () => {
    expect(await missingDocs()).toEqual([]);
  });
});
