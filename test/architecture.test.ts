import { existsSync } from 'node:fs';
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
  sandbox: 2,
  config: 2,
  serve: 2,
  internal: 1,
  errors: 0,
};
// Within the capability layer a few arrows are allowed by design.
const ALLOWED = new Set(['gateway->client', 'check->client', 'gateway->search', 'sandbox->config']);

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

  it('has no import circle anywhere in src/', async () => {
    expect(await importCircles()).toEqual(KNOWN_CIRCLES);
  });

  it('finds a circle when there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(circlesOf(graph)).toEqual(['a.ts → b.ts → c.ts → a.ts']);
  });

  it('keeps internal/ out of the package exports', async () => {
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
    const subpaths = Object.keys(pkg.exports);
    expect(subpaths.some((p) => p.includes('internal') || p.includes('*'))).toBe(false);
  });
});

/** Circles another branch removes; each line goes with its fix. */
const KNOWN_CIRCLES: string[] = [];

/**
 * Every import circle under src/, one line each (`a.ts → b.ts → a.ts`, starting at its first file by name).
 * Type-only and dynamic imports count: a circle of types is still two files that cannot be read apart.
 */
async function importCircles(): Promise<string[]> {
  const graph = new Map<string, string[]>();
  for (const file of await sourceFiles(SRC)) {
    const text = await readFile(file, 'utf8');
    const targets = [...text.matchAll(/(?:from\s+|import\()'(\.[^']+)'/g)].map((m) =>
      relative(SRC, sourceOf(resolve(dirname(file), m[1] as string))),
    );
    graph.set(relative(SRC, file), [...new Set(targets)]);
  }
  return circlesOf(graph);
}

/** The `.ts` file an import specifier names (`./x.js` → `x.ts`, `./dir` → `dir/index.ts`). */
function sourceOf(target: string): string {
  const ts = target.replace(/\.js$/, '.ts');
  if (existsSync(ts)) return ts;
  return existsSync(join(target, 'index.ts')) ? join(target, 'index.ts') : ts;
}

/** Each strongly connected group of files (Tarjan) as one circle through it, sorted. */
function circlesOf(graph: Map<string, string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const circles: string[] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (stack.includes(next))
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      group.push(top);
      if (top === node) break;
    }
    const selfLoop = (graph.get(node) ?? []).includes(node);
    if (group.length > 1 || selfLoop) circles.push(pathThrough(graph, new Set(group)));
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return circles.sort();
}

/** One circle inside a strongly connected group: from its first file by name, breadth-first back to it. */
function pathThrough(graph: Map<string, string[]>, group: Set<string>): string {
  const start = [...group].sort()[0] as string;
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i] as string;
    for (const next of graph.get(node) ?? []) {
      if (!group.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = previous.get(at))
          path.splice(1, 0, at);
        return [...path, start].join(' → ');
      }
      if (!previous.has(next) && next !== start) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [...group].sort().join(' → ');
}
// ── search: the stages of its pipeline (src/search/<room>/) ──────────────────────────────────────────────────
// A later stage may import an earlier one, never the reverse.
// The top-level files of src/search are its public index and three re-exports kept for src/gateway.
const SEARCH = join(SRC, 'search');
const SEARCH_STAGES = [
  'files',
  'chunks',
  'lexical',
  'vectors',
  'ranking',
  'stores',
  'code-index',
  'db-schemas',
  'server',
];
const stageOf = (file: string) => {
  const parts = relative(SEARCH, file).split('/');
  return parts.length > 1 ? SEARCH_STAGES.indexOf(parts[0] as string) : undefined;
};

describe('search stages', () => {
  it('puts every file of src/search in a stage room', async () => {
    const loose = (await sourceFiles(SEARCH))
      .map((file) => relative(SEARCH, file))
      .filter((path) => path.includes('/') && stageOf(join(SEARCH, path)) === -1);
    expect(loose).toEqual([]);
  });

  it('has no import from an earlier stage to a later one', async () => {
    const wrong: string[] = [];
    for (const file of await sourceFiles(SEARCH)) {
      const from = stageOf(file);
      if (from === undefined) continue;
      const text = await readFile(file, 'utf8');
      for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
        const target = resolve(dirname(file), match[1] as string);
        if (!target.startsWith(`${SEARCH}/`)) continue;
        const to = stageOf(target);
        if (to === undefined || to > from)
          wrong.push(
            `${relative(SEARCH, file)} imports ${match[1]} (${to === undefined ? 'the index' : SEARCH_STAGES[to]})`,
          );
      }
    }
    expect(wrong).toEqual([]);
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
