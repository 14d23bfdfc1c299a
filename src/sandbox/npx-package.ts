import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { homeDirectory } from '../config/index.js';
import { stderrReason } from '../internal/failure-words.js';
import { runToEnd } from '../internal/run-to-end.js';

/**
 * An `npx` server in a sandbox. npx asks the registry for the package's metadata on every start, even when
 * the package is installed and pinned, and writes npm's cache and logs: with no network and a read-only
 * home it hangs on DNS. So the sandbox does not run npx: the package is installed into npx's own cache
 * (`~/.npm/_npx`) before the sandbox closes — by `npm exec --yes`, outside the sandbox, exactly as a plain
 * `npx -y` would on its first start — and the sandbox runs its bin from there, read-only, with no network.
 */

/** What `npx [-y] <spec> args…` runs, when it can be read that way. */
export interface NpxCommand {
  spec: string;
  name: string;
  version?: string;
  args: string[];
}

const QUIET_FLAGS = new Set(['-y', '--yes', '-q', '--quiet', '--no-install']);

/** Reads an npx command line; undefined for anything else (`-p`, `-c`, a command that is not npx). */
export function parseNpx(command: string, args: readonly string[]): NpxCommand | undefined {
  if (basename(command) !== 'npx') return undefined;
  let index = 0;
  while (index < args.length && QUIET_FLAGS.has(args[index] as string)) index++;
  const spec = args[index];
  if (spec === undefined || spec.startsWith('-')) return undefined;
  const match = /^(@[^/@]+\/[^@]+|[^@]+)(?:@(.+))?$/.exec(spec);
  if (!match?.[1]) return undefined;
  return {
    spec,
    name: match[1],
    ...(match[2] === undefined ? {} : { version: match[2] }),
    args: args.slice(index + 1),
  };
}

/** npm's cache directory: `npm_config_cache`, else `~/.npm`. */
function npmCache(env: Readonly<Record<string, string | undefined>>): string {
  return env.npm_config_cache || join(homeDirectory(env), '.npm');
}

/**
 * The installed bin of the package, where npx looks: the project's `node_modules` (the working directory's),
 * then npx's cache, newest install first; undefined when in neither.
 */
export function installedNpxBin(
  npx: NpxCommand,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): string | undefined {
  const root = join(npmCache(env), '_npx');
  const trees = [
    join(cwd, 'node_modules'),
    ...(existsSync(root) ? readdirSync(root).map((hash) => join(root, hash, 'node_modules')) : []),
  ];
  const found: { bin: string; at: number }[] = [];
  for (const [index, modules] of trees.entries()) {
    const manifestPath = join(modules, npx.name, 'package.json');
    if (!existsSync(manifestPath)) continue;
    let manifest: { version?: string; bin?: string | Record<string, string> };
    try {
      manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    } catch {
      continue;
    }
    if (npx.version !== undefined && /^\d+\.\d+\.\d+/.test(npx.version) && manifest.version !== npx.version)
      continue;
    const bins =
      typeof manifest.bin === 'string'
        ? { [npx.name.split('/').pop() as string]: manifest.bin }
        : (manifest.bin ?? {});
    const names = Object.keys(bins);
    const own = npx.name.split('/').pop() as string;
    const binName = names.length === 1 ? names[0] : names.find((name) => name === own);
    if (binName === undefined) continue;
    const bin = join(modules, '.bin', binName);
    // The project's own install wins, as with npx.
    if (existsSync(bin))
      found.push({ bin, at: index === 0 ? Number.POSITIVE_INFINITY : statSync(manifestPath).mtimeMs });
  }
  return found.sort((a, b) => b.at - a.at)[0]?.bin;
}

/** A slow step of a start: what it does, and the command that does it by hand (outside any timeout). */
export interface StartStep {
  doing: string;
  byHand: string;
}

/**
 * The package's bin, installed first when it is not in the cache yet (`npm exec --yes --package=<spec>`,
 * outside the sandbox, as npx would). Throws one line when it cannot be.
 */
export async function prepareNpx(
  npx: NpxCommand,
  env: Record<string, string>,
  cwd: string,
  how: { signal?: AbortSignal | undefined; onStep?: ((step: StartStep) => void) | undefined } = {},
): Promise<string> {
  const { signal } = how;
  const installed = installedNpxBin(npx, env, cwd);
  if (installed) return installed;
  mkdirSync(npmCache(env), { recursive: true });
  if (signal?.aborted) throw new Error(`stopped before installing ${npx.spec}`);
  how.onStep?.({
    doing: `installing ${npx.spec}`,
    byHand: `npm exec --yes --package=${npx.spec} -- node -e 0`,
  });
  // From the cache's own directory, so npm installs into npx's cache rather than finding a project's.
  const outcome = await runToEnd(
    'npm',
    ['exec', '--yes', `--package=${npx.spec}`, '--', 'node', '-e', '0'],
    env,
    npmCache(env),
    signal,
  );
  if (signal?.aborted) throw new Error(`stopped while installing ${npx.spec}`);
  const bin = outcome.code === 0 ? installedNpxBin(npx, env, cwd) : undefined;
  if (bin) return bin;
  // npm's own lines say `npm error …`; the one that says why reads like an error once that is off.
  const lines = outcome.stderr
    .split('\n')
    .map((line) => line.replace(/^npm (?:error|ERR!)\s?/, ''))
    .filter((line) => !/^(A complete log|If you are behind a proxy|\s*$)/.test(line));
  const said = stderrReason(lines) ?? outcome.error?.message ?? `exit ${outcome.code}`;
  throw new Error(`cannot install ${npx.spec} (npm exec: ${said})`);
}
