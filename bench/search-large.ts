// Code search on a large tree (issue 22): the JDK's class library, ~15k Java files. Each phase runs in its own
// process (its own peak RSS): a search while the index is built, a cold index and its saved size, a start with the
// saved index (first answer, steady RSS, warm query p50/p99 per mode), and ripgrep over the same tree in the same run.
//
// The tree: MCPKIT_BENCH_JDK_SRC (a directory of sources, or a src.zip), else Debian's openjdk-17-source (installed
// with apt-get when this runs as root), else a Temurin JDK's lib/src.zip; skipped with one line when there is none.
// MCPKIT_BENCH_SEARCH_SRC=<checkout>/src runs the phases with another checkout's search code (an A/B in one run).
// MCPKIT_BENCH_KERNEL_SRC=<dir> adds `mcpkit index` of that tree (the Linux kernel's sources: time, peak RSS).
// MODEL=DIR (or `builtin`) gives the plain-English phase a static model's vectors instead of the corpus's.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JDK_QUERIES, median, percentile } from './measure.js';

const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;
const here = dirname(fileURLToPath(import.meta.url));

type Phase = 'during' | 'cold' | 'index' | 'warm' | 'english';

/** Plain-English queries over the tree with its Javadoc blanked: this many, an even sample of the doc comments. */
const ENGLISH_QUERIES = 40;

/** One phase, in this (child) process: prints one JSON line. */
async function phase(name: Phase, tree: string, src: string): Promise<void> {
  const { CodeIndex } = await import(join(src, 'search/code-index/code-index.ts'));
  const { createSearchServer } = await import(join(src, 'search/server/search-server.ts'));
  const { Client, InMemoryTransport } = await import('@modelcontextprotocol/client');
  const serve = async () => {
    const logs: string[] = [];
    const server = createSearchServer({
      root: tree,
      env: {},
      watch: false,
      saveIndex: false,
      log: (m: string) => logs.push(m),
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await (await server.factory({} as never)).connect(b);
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(a);
    const ask = async (query: string, mode?: string) => {
      const result = await client.callTool({
        name: 'search',
        arguments: { query, top_k: 5, ...(mode ? { mode } : {}) },
      });
      return ((result.content as { text: string }[])[0]?.text ?? '').split('\n')[0] as string;
    };
    return {
      server,
      ask,
      logs,
      close: async () => {
        await client.close();
        await server.close();
      },
    };
  };
  const out: Record<string, unknown> = {};
  const t0 = performance.now();
  if (name === 'during') {
    const { ask, server, close } = await serve();
    out.header = await ask(JDK_QUERIES[0] as string);
    out.firstMs = performance.now() - t0;
    await server.ready();
    out.readyMs = performance.now() - t0;
    await close();
  } else if (name === 'cold') {
    // `mcpkit index --no-vectors`: bm25 alone.
    const index = await CodeIndex.build(tree, { saved: false, vectors: 'none' });
    out.bm25Ms = performance.now() - t0;
    out.files = index.files;
    out.chunks = index.chunkCount ?? index.chunks.length;
    out.bytes = statSync(await index.save()).size;
  } else if (name === 'english') {
    // Queries made from doc comments, searched in a copy with every doc comment blanked: the words must be matched
    // to code. The target file's rank in each mode's top 10 (files de-duplicated).
    const { blankedCopy } = await import('./nl-queries.js');
    const { dir, queries } = blankedCopy(tree, ENGLISH_QUERIES);
    try {
      // MODEL=DIR (or `builtin`): a static model's vectors instead of the corpus's own.
      const { StaticModel } = await import(join(src, 'search/vectors/static-model.ts'));
      const model = process.env.MODEL ? await StaticModel.load(process.env.MODEL) : undefined;
      const index = await CodeIndex.build(dir, { saved: false, ...(model ? { model } : {}) });
      out.englishMs = performance.now() - t0;
      const rankOf = (query: string, file: string, mode: string) => {
        const files: string[] = [];
        for (const hit of index.search(query, 40, mode) as { chunk: { path: string } }[])
          if (!files.includes(hit.chunk.path)) files.push(hit.chunk.path);
        const at = files.slice(0, 10).indexOf(file);
        return at < 0 ? undefined : at + 1;
      };
      out.english = queries.map(({ query, file }) => ({
        query,
        file,
        bm25: rankOf(query, file, 'bm25'),
        hybrid: rankOf(query, file, 'hybrid'),
      }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } else if (name === 'index') {
    // `mcpkit index`: bm25 and the vectors, saved for the warm start.
    const index = await CodeIndex.build(tree, { saved: false, onWarning: (m: string) => (out.warning = m) });
    out.totalMs = performance.now() - t0;
    out.hasVectors = index.hasVectors;
    out.files = index.files;
    out.chunks = index.chunkCount;
    out.bytes = statSync(await index.save()).size;
  } else {
    const { ask, server, close } = await serve();
    out.header = await ask(JDK_QUERIES[0] as string);
    out.firstMs = performance.now() - t0;
    const index = await server.ready();
    out.readyMs = performance.now() - t0;
    (globalThis as { gc?: () => void }).gc?.();
    out.steadyKb = process.memoryUsage().rss / 1024;
    const times: Record<string, number[]> = { bm25: [], semantic: [], hybrid: [] };
    for (const mode of ['bm25', 'semantic', 'hybrid'])
      for (let round = 0; round < 5; round++)
        for (const query of JDK_QUERIES) {
          const t = performance.now();
          index.search(query, 5, mode);
          times[mode]?.push(performance.now() - t);
        }
    out.times = times;
    await close();
  }
  out.peakKb = process.resourceUsage().maxRSS;
  console.log(JSON.stringify(out));
}

/** Where the JDK's sources are, as a directory or a zip; undefined (and why) when there are none. */
function locateJdk(): { path: string } | { missing: string } {
  const given = process.env.MCPKIT_BENCH_JDK_SRC;
  if (given)
    return existsSync(given)
      ? { path: resolve(given) }
      : { missing: `MCPKIT_BENCH_JDK_SRC=${given} does not exist` };
  const debian = '/usr/lib/jvm/openjdk-17/lib/src.zip';
  if (!existsSync(debian) && process.getuid?.() === 0 && spawnSync('apt-get', ['--version']).status === 0)
    spawnSync('apt-get', ['install', '-y', '-q', 'openjdk-17-source'], { stdio: 'ignore' });
  if (existsSync(debian)) return { path: debian };
  const jvm = existsSync('/usr/lib/jvm') ? readdirSync('/usr/lib/jvm') : [];
  const zip = jvm.map((dir) => join('/usr/lib/jvm', dir, 'lib/src.zip')).find(existsSync);
  if (zip) return { path: zip };
  return { missing: 'no JDK sources (set MCPKIT_BENCH_JDK_SRC, or apt-get install openjdk-17-source)' };
}

/** The plain-English phase's lines. */
function printEnglish(english: Record<string, unknown>): void {
  type Ranked = { query: string; file: string; bm25?: number; hybrid?: number };
  const ranked = english.english as Ranked[];
  const gain = (rank?: number) => (rank ? 1 / Math.log2(rank + 1) : 0);
  const mean = (mode: 'bm25' | 'hybrid') => ranked.reduce((sum, q) => sum + gain(q[mode]), 0) / ranked.length;
  const onlyHybrid = ranked.filter((q) => q.hybrid && !q.bm25);
  console.log(
    `  plain English over the tree with its Javadoc blanked (${ranked.length} queries from doc comments): NDCG@10 bm25 ${mean('bm25').toFixed(3)}, hybrid ${mean('hybrid').toFixed(3)}; in hybrid's top 10 only: ${onlyHybrid.length}, in bm25's only: ${ranked.filter((q) => q.bm25 && !q.hybrid).length}`,
  );
  for (const q of onlyHybrid.slice(0, 5))
    console.log(`    hybrid #${q.hybrid}, bm25 not in 10: "${q.query}" → ${q.file}`);
}

function run(name: Phase, tree: string, src: string): Record<string, unknown> {
  const child = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--phase', name, tree, src],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, cwd: resolve(here, '..') },
  );
  const line = child.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw new Error(`phase ${name} failed: ${child.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  }
}

async function main(): Promise<void> {
  const jdk = locateJdk();
  if ('missing' in jdk) {
    console.log(`large-tree search benchmark: skipped: ${jdk.missing}`);
    return;
  }
  const tree = mkdtempSync(join(tmpdir(), 'mcpkit-bench-jdk-'));
  try {
    if (statSync(jdk.path).isDirectory()) cpSync(jdk.path, tree, { recursive: true });
    else if (spawnSync('unzip', ['-q', jdk.path, '-d', tree]).status !== 0) {
      console.log(`large-tree search benchmark: skipped: cannot unzip ${jdk.path} (apt-get install unzip)`);
      return;
    }
    const src = resolve(process.env.MCPKIT_BENCH_SEARCH_SRC ?? join(here, '../src'));
    // --english: the plain-English phase alone (a model's or a ranking change's effect on it, in minutes).
    if (process.argv.includes('--english')) {
      printEnglish(run('english', tree, src));
      return;
    }
    const sourceBytes = Number(spawnSync('du', ['-sb', tree], { encoding: 'utf8' }).stdout.split('\t')[0]);
    const during = run('during', tree, src);
    const cold = run('cold', tree, src);
    const full = run('index', tree, src);
    const warm = run('warm', tree, src);
    const english = run('english', tree, src);
    // Growth: the same cold index on java.base alone (~a fifth of the files): time per file should not grow with size.
    const base = existsSync(join(tree, 'java.base')) ? run('cold', join(tree, 'java.base'), src) : undefined;
    const kernelTree = process.env.MCPKIT_BENCH_KERNEL_SRC;
    const kernel = kernelTree ? run('index', resolve(kernelTree), src) : undefined;
    const rgTimes: number[] = [];
    const hasRg = spawnSync('rg', ['--version']).status === 0;
    if (hasRg)
      for (const query of JDK_QUERIES) {
        const word = query.split(/\W+/).sort((a, b) => b.length - a.length)[0] ?? query;
        const t = performance.now();
        spawnSync('rg', ['-l', '-i', '--', word, tree], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
        rgTimes.push(performance.now() - t);
      }
    const files = cold.files as number;
    console.log(
      `large-tree search benchmark: ${jdk.path}, ${files} files, ${cold.chunks} chunks, ${(sourceBytes / 1e6).toFixed(0)} MB of source (${src})`,
    );
    console.log(
      `  first answer while the index is built: ${(during.firstMs as number).toFixed(0)} ms: ${during.header} (goal <= 2 s)`,
    );
    console.log(
      `  search server, no saved index: complete after ${((during.readyMs as number) / 1000).toFixed(1)} s, peak RSS ${mb(during.peakKb as number)} (goal <= 800 MB)`,
    );
    const bm25Ms = cold.bm25Ms as number;
    console.log(
      `  cold index, bm25 only: ${(bm25Ms / 1000).toFixed(1)} s, ${((files / bm25Ms) * 1000).toFixed(0)} files/s (goal >= 1,000 files/s), peak RSS ${mb(cold.peakKb as number)}; saved ${((cold.bytes as number) / 1e6).toFixed(0)} MB (source ${(sourceBytes / 1e6).toFixed(0)} MB)`,
    );
    console.log(
      `  cold index with vectors (mcpkit index): ${((full.totalMs as number) / 1000).toFixed(1)} s, peak RSS ${mb(full.peakKb as number)}; saved ${((full.bytes as number) / 1e6).toFixed(0)} MB${full.warning ? ` (${full.warning})` : ''}`,
    );
    console.log(
      `  start with the saved index: first answer ${(warm.firstMs as number).toFixed(0)} ms (goal <= 1 s): ${warm.header}`,
    );
    console.log(
      `  steady RSS ${mb(warm.steadyKb as number)} (goal <= 400 MB), peak ${mb(warm.peakKb as number)}`,
    );
    const times = warm.times as Record<string, number[]>;
    for (const mode of ['bm25', 'semantic', 'hybrid'])
      console.log(
        `  warm query (${mode}): p50 ${median(times[mode] ?? []).toFixed(1)} ms, p99 ${percentile(times[mode] ?? [], 0.99).toFixed(1)} ms`,
      );
    printEnglish(english);
    if (hasRg)
      console.log(
        `  ripgrep, same queries (spawn + search of the tree): p50 ${median(rgTimes).toFixed(0)} ms, p99 ${percentile(rgTimes, 0.99).toFixed(0)} ms`,
      );
    else console.log('  ripgrep baseline: rg not installed (apt-get install ripgrep)');
    if (base) {
      const ratio = (files / (base.files as number)).toFixed(1);
      const time = (bm25Ms / (base.bm25Ms as number)).toFixed(1);
      console.log(
        `  growth: java.base alone (${base.files} files) ${((base.bm25Ms as number) / 1000).toFixed(1)} s; the whole tree is ${ratio}x the files and took ${time}x the time (goal: 5x the files in <= 5.5x the time)`,
      );
    }
    if (kernel)
      console.log(
        `  ${kernelTree} (MCPKIT_BENCH_KERNEL_SRC), mcpkit index: ${((kernel.totalMs as number) / 1000).toFixed(0)} s, ${kernel.files} files, ${kernel.chunks} chunks, vectors ${kernel.hasVectors ? 'yes' : 'no'}, peak RSS ${mb(kernel.peakKb as number)} (goal <= 1.5 GB)${kernel.warning ? `; ${kernel.warning}` : ''}`,
      );
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}

const at = process.argv.indexOf('--phase');
if (at >= 0)
  await phase(process.argv[at + 1] as Phase, process.argv[at + 2] as string, process.argv[at + 3] as string);
else await main();
