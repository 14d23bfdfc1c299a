// Hardening run, category 4: generated injection payloads into every string argument of every tool of the
// example contracts (git, jq) and the test contract, through a spawned `mcpkit bridge` and the SDK v1 client.
// Escapes: a file a payload tries to create appears, a secret outside the roots (a file, or a variable of
// the bridge's environment) shows up in a result, or the bridge process dies.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI } from '../helpers/cli.js';
import { fixture } from '../helpers/servers.js';
import { connectV1 } from '../helpers/v1-client.js';

/** Calls in flight at once on one bridge. */
const PARALLEL = 4;
const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));

export interface InjectionRow {
  contract: string;
  calls: number;
  /** Results the bridge marked isError (refused or failed): expected for most payloads, not a fault. */
  refused: number;
  escapes: number;
  deaths: number;
  notes: string[];
}

/**
 * Payloads built around `marker` (a path a successful injection creates), `secretFile` (a JSON file outside
 * the roots) and `fromCwd` (the secret's path relative to where the program runs, without `.json`: jq
 * resolves `import` / `include` paths against it).
 */
export function payloads(marker: string, secretFile: string, fromCwd: string, rnd: () => number): string[] {
  const touch = `touch ${marker}`;
  const long = (unit: string) => unit.repeat(1000 + Math.floor(rnd() * 20_000));
  return [
    `; ${touch}`,
    `x | ${touch}`,
    `x & ${touch} &`,
    `$(${touch})`,
    `\`${touch}\``,
    `x > ${marker}`,
    `x < ${secretFile}`,
    `x\n${touch}\n`,
    `x\r\n${touch}`,
    `a\0${touch}`,
    `--upload-pack=${touch}`,
    `--output=${marker}`,
    `-o${marker}`,
    `-c core.pager=${touch}`,
    `-c`,
    '--',
    '-',
    `--exec=${touch}`,
    `--open-files-in-pager=${touch}`,
    `--ext-diff`,
    `--textconv`,
    `-O${touch}`,
    `--format=%(${touch})`,
    `../../${secretFile}`,
    `../../../../../../..${secretFile}`,
    secretFile,
    `./../${secretFile.split('/').slice(-2).join('/')}`,
    `%2e%2e%2f%2e%2e%2f`,
    long('A'),
    long('../'),
    long('€'),
    '\u202e\u0000\ufeff☃𝔘𝔫𝔦𝔠𝔬𝔡𝔢\u0301',
    `"; ${touch}; echo "`,
    `'; ${touch}; echo '`,
    '$HOME',
    '${PATH}',
    '$ENV',
    'env',
    `$__loc__`,
    `input_filename`,
    `import "${secretFile.replace(/\.json$/, '')}" as $s; $s`,
    `import "${fromCwd}" as $s; $s`,
    `# a comment first\nimport "${fromCwd}" as $s; $s`,
    `include "${fromCwd}"; .`,
    `@sh "${touch}"`,
    `[range(1e9)]`,
    `HEAD:${secretFile}`,
    `HEAD; ${touch}`,
  ];
}

interface ContractRun {
  name: string;
  file: string;
  cwd: string;
  env: Record<string, string>;
  /** Values that make a required argument valid, so the payload reaches the program. */
  valid: Record<string, unknown>;
}

/** The JSON schema shape the bridge lists for a tool's arguments. */
interface InputSchema {
  properties?: Record<string, { type?: string; items?: { type?: string } }>;
  required?: string[];
}

/**
 * Calls every tool of every contract with payloads in each string argument: every payload once where
 * `matrix` says so (by contract name and `tool.argument`), and `perArgument` drawn at random.
 */
export async function runInjection(
  { perArgument, matrix }: { perArgument: number; matrix: (contract: string, argument: string) => boolean },
  rnd: () => number,
): Promise<InjectionRow[]> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'mcpkit-harden-inject-')));
  const markers = join(base, 'markers');
  const repos = join(base, 'repos');
  const repo = join(repos, 'project');
  const data = join(base, 'data');
  const outside = join(base, 'outside');
  const secretWord = `hardenSecret${Math.floor(rnd() * 1e9)}`;
  const envWord = `hardenToken${Math.floor(rnd() * 1e9)}`;
  const secretFile = join(outside, 'secret.json');
  for (const dir of [markers, repo, data, outside]) await mkdir(dir, { recursive: true });
  await writeFile(secretFile, `{"secret":"${secretWord}"}\n`);
  await writeFile(join(data, 'data.json'), '{"items":[{"name":"a"},{"name":"b"}]}\n');
  await writeFile(join(repo, 'a.txt'), 'hello\n');
  const git = (...args: string[]) => spawnSync('git', ['-C', repo, ...args], { stdio: 'ignore' });
  git('init', '-q');
  git('add', '.');
  git('-c', 'user.name=h', '-c', 'user.email=h@h', 'commit', '-q', '-m', 'first');
  const home = join(base, 'home');
  await mkdir(home);
  const common = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    MCPKIT_CONFIG_DIR: join(base, 'user'),
    API_KEY: envWord,
  };
  const runs: ContractRun[] = [
    {
      name: 'examples/git.yaml',
      file: join(EXAMPLES, 'git.yaml'),
      cwd: repo,
      env: { ...common, GIT_REPOS: repos },
      valid: { repo: '.', revision: 'HEAD', file: 'a.txt', pattern: 'hello' },
    },
    {
      name: 'examples/jq.yaml',
      file: join(EXAMPLES, 'jq.yaml'),
      cwd: data,
      env: { ...common, JQ_ROOT: data },
      valid: { filter: '.', file: 'data.json' },
    },
    {
      name: 'test/fixtures/bridge/contract.yaml',
      file: fixture('bridge/contract.yaml'),
      cwd: base,
      env: common,
      valid: {},
    },
  ];
  const rows: InjectionRow[] = [];
  let serial = 0;
  try {
    for (const run of runs) {
      const row: InjectionRow = {
        contract: run.name,
        calls: 0,
        refused: 0,
        escapes: 0,
        deaths: 0,
        notes: [],
      };
      rows.push(row);
      const session = await connectV1([CLI, 'bridge', run.file], run.cwd, run.env);
      let died = false;
      void session.exited.then(() => {
        died = true;
      });
      // Marker file name → the call whose payload names it.
      const calls = new Map<string, string>();
      const fromCwd = relative(run.cwd, secretFile).replace(/\.json$/, '');
      const kinds = payloads('', secretFile, fromCwd, rnd).length;
      const jobs: { tool: string; args: Record<string, unknown>; where: string }[] = [];
      for (const tool of (await session.client.listTools()).tools) {
        const schema = tool.inputSchema as InputSchema;
        const props = Object.entries(schema.properties ?? {});
        const fill: Record<string, unknown> = {};
        for (const [name, prop] of props)
          if (schema.required?.includes(name))
            fill[name] =
              run.valid[name] ?? (prop.type === 'integer' ? 0 : prop.type === 'boolean' ? false : 'x');
        for (const [name, prop] of props.filter(
          ([, p]) => p.type === 'string' || p.items?.type === 'string',
        )) {
          // Every payload once (the matrix), then `perArgument` drawn at random (long strings vary in length).
          const first = matrix(run.name, `${tool.name}.${name}`) ? 0 : kinds;
          for (let i = first; i < kinds + perArgument; i++) {
            const markerName = `pwned-${serial++}`;
            const all = payloads(join(markers, markerName), secretFile, fromCwd, rnd);
            const payload = all[i < kinds ? i : Math.floor(rnd() * all.length)] as string;
            const where = `${tool.name}.${name} = ${JSON.stringify(payload).slice(0, 80)}`;
            calls.set(markerName, where);
            jobs.push({
              tool: tool.name,
              args: { ...fill, [name]: prop.type === 'string' ? payload : [payload] },
              where,
            });
          }
        }
      }
      const one = async ({ tool, args, where }: (typeof jobs)[number]) => {
        row.calls++;
        try {
          const result = await session.client.callTool({ name: tool, arguments: args }, undefined, {
            timeout: 60_000,
          });
          if (result.isError) row.refused++;
          const text = JSON.stringify(result);
          for (const [word, what] of [
            [secretWord, 'the secret outside the roots'],
            [envWord, "the bridge's API_KEY"],
          ])
            if (text.includes(word as string)) {
              row.escapes++;
              row.notes.push(`${where}: the result holds ${what}`);
            }
        } catch (error) {
          row.refused++;
          if (!died) row.notes.push(`${where}: ${(error as Error).message.slice(0, 120)}`);
        }
      };
      // A few calls at a time, as an agent's parallel tool calls arrive.
      const queue = [...jobs];
      await Promise.all(
        Array.from({ length: PARALLEL }, async () => {
          for (let job = queue.shift(); job && !died; job = queue.shift()) await one(job);
        }),
      );
      for (const made of await readdir(markers)) {
        row.escapes++;
        row.notes.push(`${calls.get(made) ?? made}: created ${made}`);
        await rm(join(markers, made), { force: true });
      }
      if (died) {
        row.deaths++;
        row.notes.push(`the bridge died: ${JSON.stringify(await session.exited)}`);
      }
      await session.client.close().catch(() => undefined);
    }
  } finally {
    await rm(base, { recursive: true, force: true });
  }
  return rows;
}
