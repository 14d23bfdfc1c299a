import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A file of the dashboard's page. */
export interface AssetFile {
  type: string;
  body: Buffer;
}

const TYPES = new Map<string, string>([
  ['.html', 'text/html; charset=utf-8'],
  ['.js', 'text/javascript; charset=utf-8'],
  ['.css', 'text/css; charset=utf-8'],
  ['.svg', 'image/svg+xml'],
  ['.png', 'image/png'],
]);

/**
 * The folder of the page's files, `assets/dashboard/` at the package root: two levels up from the CLI
 * bundle (`dist/bin/`), four from this module (`src/gateway/observers/dashboard/`, and the same under
 * `dist/`).
 */
const ROOT = [
  new URL('../../../../assets/dashboard/', import.meta.url),
  new URL('../../assets/dashboard/', import.meta.url),
]
  .map((url) => fileURLToPath(url))
  .find((dir) => existsSync(join(dir, 'index.html')));

const cache = new Map<string, AssetFile>();

/** A file of the page by its name under `assets/dashboard/`; undefined for anything else (or outside it). */
export async function dashboardAsset(name: string): Promise<AssetFile | undefined> {
  const type = TYPES.get(extname(name));
  if (!ROOT || !type || name.includes('\0')) return undefined;
  const path = normalize(join(ROOT, name));
  if (!path.startsWith(ROOT.endsWith(sep) ? ROOT : `${ROOT}${sep}`)) return undefined;
  const cached = cache.get(path);
  if (cached) return cached;
  try {
    const file = { type, body: await readFile(path) };
    cache.set(path, file);
    return file;
  } catch {
    return undefined;
  }
}
