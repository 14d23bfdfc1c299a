// Hardening run, category 3: a running search server (in-process) on a repository that changes under it
// the way a hostile `git pull` would. Each round adds one attack, then a marker file; once the marker is
// searchable the watcher has seen the attack, and no word that exists only outside the repository may be
// found. Escapes: outside words in an answer or in the index; hangs: a marker never searchable.
import { spawnSync } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { createSearchServer } from '../../src/search/index.js';
import { eventually } from '../helpers/eventually.js';
import { textOf } from '../search/fixtures.js';

export const SEARCH_ATTACKS = [
  'dir symlink out',
  'file symlink out',
  'link to /dev/zero',
  'FIFO',
  '.gitignore -> /dev/zero',
  'dir swapped for a link',
] as const;
export type SearchAttack = (typeof SEARCH_ATTACKS)[number];

export interface AttackCounts {
  rounds: number;
  escapes: number;
  hangs: number;
}

export interface SearchOutcome {
  /** Per attack: how often it was planted, and what went wrong after it. */
  attacks: Partial<Record<SearchAttack, AttackCounts>>;
  rounds: number;
  /** Peak growth of this process's RSS over the run (a /dev/zero read costs ~0.5 GiB). */
  rssGrowthMiB: number;
  notes: string[];
}

const MARKER_BUDGET_MS = 20_000;
const hasMkfifo = !spawnSync('mkfifo', ['--version']).error;

/** Runs `rounds` attacks (chosen by `rnd`) against one search server. */
export async function runSearchEscapes(rounds: number, rnd: () => number): Promise<SearchOutcome> {
  const base = await mkdtemp(join(tmpdir(), 'mcpkit-harden-search-'));
  const repo = join(base, 'repo');
  const outside = join(base, 'outside');
  await mkdir(join(repo, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(repo, 'src/real.ts'), 'export function realCodeHere() {\n  return 1;\n}\n');
  const outcome: SearchOutcome = { attacks: {}, rounds: 0, rssGrowthMiB: 0, notes: [] };
  const fifos: string[] = [];
  /** Each outside word, with the counts of the attack that planted it. */
  const words: { word: string; counts: AttackCounts }[] = [];
  const escaped = new Set<string>();
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const server = createSearchServer({ root: repo, env: {}, vectors: 'none', log: () => undefined });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await (await server.factory({} as Parameters<McpServerFactory>[0])).connect(serverSide);
  const client = new Client({ name: 'harden', version: '1' });
  await client.connect(clientSide);
  /** Whether `path` is found searching for `word` within the budget. */
  const seen = (word: string, path: string) =>
    eventually(
      `${path} in the answer for ${word}`,
      async () => ((await search(word)).includes(path) ? true : undefined),
      MARKER_BUDGET_MS,
    ).catch(() => false);
  /** Why a written file was not found: tells a lost watcher event (a second write is seen) from a stall. */
  const lost = async (path: string, file: string) => {
    const indexed = (await server.ready()).hasFile(path);
    await writeFile(file, `${await readFile(file, 'utf8')}// written again\n`);
    const again = await eventually(
      `${path} in the index after a second write`,
      async () => ((await server.ready()).hasFile(path) ? 'seen' : undefined),
      MARKER_BUDGET_MS,
    ).catch(() => 'not seen either');
    return `${path} not searchable within ${MARKER_BUDGET_MS} ms (in the index: ${indexed}; written again: ${again})`;
  };
  const search = async (query: string) =>
    textOf(await client.callTool({ name: 'search', arguments: { query } }));
  try {
    await server.ready();
    for (let round = 0; round < rounds; round++) {
      const choices = SEARCH_ATTACKS.filter((a) => a !== 'FIFO' || hasMkfifo);
      // Every attack once, then drawn at random.
      const attack = choices[
        round < choices.length ? round : Math.floor(rnd() * choices.length)
      ] as SearchAttack;
      const counts = outcome.attacks[attack] ?? { rounds: 0, escapes: 0, hangs: 0 };
      outcome.attacks[attack] = counts;
      counts.rounds++;
      const dir = join(repo, `r${round}`);
      const out = join(outside, `o${round}`);
      // A word found nowhere in the repository: an answer or chunk holding it came from outside.
      const word = `outsideSecretWord${round}x${Math.floor(rnd() * 1e9)}`;
      words.push({ word, counts });
      await mkdir(dir);
      await mkdir(out);
      await writeFile(join(out, 'secret.ts'), `export const leaked = '${word}';\n`);
      switch (attack) {
        case 'dir symlink out':
          await symlink(out, join(dir, 'linked'));
          break;
        case 'file symlink out':
          await symlink(join(out, 'secret.ts'), join(dir, 'linked.ts'));
          break;
        case 'link to /dev/zero':
          await symlink('/dev/zero', join(dir, 'zero.ts'));
          break;
        case 'FIFO': {
          const fifo = join(dir, 'pipe.ts');
          spawnSync('mkfifo', [fifo]);
          fifos.push(fifo);
          break;
        }
        case '.gitignore -> /dev/zero':
          await symlink('/dev/zero', join(dir, '.gitignore'));
          break;
        case 'dir swapped for a link': {
          const swapped = join(dir, 'd');
          await mkdir(swapped);
          await writeFile(join(swapped, 'inside.ts'), `export const insideBeforeSwap${round} = 1;\n`);
          const inside = `r${round}/d/inside.ts`;
          if (!(await seen(`insideBeforeSwap${round}`, inside))) {
            counts.hangs++;
            outcome.notes.push(
              `round ${round} (${attack}): ${await lost(inside, join(swapped, 'inside.ts'))}`,
            );
          }
          await rm(swapped, { recursive: true });
          await symlink(out, swapped);
          break;
        }
      }
      // Written through the attack after it was planted: a watcher following links would see it now.
      await writeFile(join(out, 'late.ts'), `export const lateLeak = '${word}';\n`);
      const marker = `hardenMarkerRound${round}x${Math.floor(rnd() * 1e9)}`;
      await writeFile(join(dir, 'marker.ts'), `export function ${marker}() {\n  return ${round};\n}\n`);
      const markerPath = `r${round}/marker.ts`;
      if (!(await seen(marker, markerPath))) {
        counts.hangs++;
        outcome.notes.push(`round ${round} (${attack}): ${await lost(markerPath, join(dir, 'marker.ts'))}`);
      }
      peak = Math.max(peak, process.memoryUsage().rss);
      const index = await server.ready();
      for (const planted of words.filter((x) => !escaped.has(x.word))) {
        const w = planted.word;
        // The first line of an answer echoes the query; the word anywhere below it came from a file.
        const answered = (await search(w)).split('\n').slice(1).join('\n').includes(w);
        const indexed = index.chunks.some((c) => c.content.includes(w));
        if (answered || indexed) {
          escaped.add(w);
          planted.counts.escapes++;
          outcome.notes.push(`round ${round}: ${w} ${answered ? 'returned' : 'indexed'}`);
        }
      }
      outcome.rounds++;
    }
  } finally {
    // A reader stuck opening a FIFO is released by a writer, so no libuv thread stays blocked.
    for (const fifo of fifos)
      await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).then(
        (handle) => handle.close(),
        () => undefined,
      );
    await client.close();
    await server.close();
    await rm(base, { recursive: true, force: true });
  }
  outcome.rssGrowthMiB = Math.round((peak - rssBefore) / 2 ** 20);
  return outcome;
}
