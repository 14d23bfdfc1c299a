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

/**
 * The gateway's rooms. `gateway/` itself holds the core routing (catalog, router, fast path, upstreams…);
 * `gateway/tasks/` the tasks it runs or passes through, `gateway/observers/` what watches calls (events,
 * audit, telemetry, the dashboard). The rooms may import the core; the core imports no room, except the
 * call-event seam (`observers/call-events.ts`, which imports nothing of the gateway). The assembly
 * (`gateway.ts`, `index.ts`) wires rooms and core together; only the observers may look at it (the
 * dashboard watches the whole `Gateway`).
 */
describe('gateway rooms', () => {
  const GATEWAY = join(SRC, 'gateway');
  const SEAM = 'observers/call-events.ts';
  const ASSEMBLY = new Set(['gateway.ts', 'index.ts']);
  const room = (path: string) =>
    ASSEMBLY.has(path)
      ? 'assembly'
      : path.startsWith('tasks/')
        ? 'tasks'
        : path.startsWith('observers/')
          ? 'observers'
          : 'core';

  async function gatewayArrows(): Promise<{ from: string; to: string }[]> {
    const arrows: { from: string; to: string }[] = [];
    for (const file of await sourceFiles(GATEWAY)) {
      const text = await readFile(file, 'utf8');
      for (const match of text.matchAll(/(?:from\s+|import\()'(\.[^']+)'/g)) {
        const to = relative(GATEWAY, resolve(dirname(file), (match[1] as string).replace(/\.js$/, '.ts')));
        if (!to.startsWith('..')) arrows.push({ from: relative(GATEWAY, file), to });
      }
    }
    return arrows;
  }

  it('keeps the core out of the rooms, but for the call-event seam', async () => {
    const wrong = (await gatewayArrows())
      .filter(({ from, to }) => room(from) === 'core' && (room(to) === 'tasks' || room(to) === 'observers'))
      .filter(({ to }) => to !== SEAM)
      .map(({ from, to }) => `${from} imports ${to}`);
    expect(wrong).toEqual([]);
  });

  it('keeps the rooms apart, the seam a leaf, and the assembly imported by observers only', async () => {
    const wrong = (await gatewayArrows())
      .filter(
        ({ from, to }) =>
          (from === SEAM && to !== SEAM) ||
          (room(from) === 'tasks' && room(to) === 'observers' && to !== SEAM) ||
          (room(from) === 'observers' && room(to) === 'tasks') ||
          (room(to) === 'assembly' && room(from) !== 'observers' && room(from) !== 'assembly'),
      )
      .map(({ from, to }) => `${from} imports ${to}`);
    expect(wrong).toEqual([]);
  });
});
