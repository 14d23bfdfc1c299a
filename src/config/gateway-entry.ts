import { isStdioServer, type ServerEntry } from './schema.js';

/**
 * Recognises a server entry that runs `mcpkit gateway`. The gateway serves mcpkit's own config, so such an
 * entry inside that config makes the gateway start a copy of itself, which starts another: `import` and
 * `add` skip it, and `doctor` reports it. Every spelling a user or a README snippet produces counts:
 * `mcpkit gateway`, `npx -y mcpkit@1 gateway`, `pnpm dlx mcpkit gateway`, `node …/dist/bin/main.js gateway`,
 * `tsx src/bin/main.ts gateway`, and the same behind `sh -c "…"` or `cmd /c …`.
 */
export function runsMcpkitGateway(entry: ServerEntry): boolean {
  if (!isStdioServer(entry)) return false;
  return commandRunsMcpkitGateway([entry.command, ...(entry.args ?? [])]);
}

/** Why an entry that runs the gateway is not taken into mcpkit's config. */
export const GATEWAY_LOOP =
  'runs `mcpkit gateway`, which serves this same config: the gateway would start itself again and again; not added (give the gateway to your client, and its servers to mcpkit)';

/** {@link runsMcpkitGateway} on a bare command line (command first, then its arguments). */
export function commandRunsMcpkitGateway(words: readonly string[]): boolean {
  let rest = [...words];
  // A shell wrapper holds the whole command line in one string: split it on whitespace (a guess that only
  // needs to be good enough to recognise the words, never to run them).
  const shell = shellPayload(rest);
  if (shell !== undefined) rest = shell.split(/\s+/).filter((w) => w !== '');
  rest = skipLaunchers(rest);
  const [program, ...after] = rest;
  if (program === undefined || !isMcpkitProgram(program)) return false;
  return firstWord(after) === 'gateway';
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'fish']);

function shellPayload(words: string[]): string | undefined {
  const [command, flag, payload] = words;
  if (command === undefined || payload === undefined) return undefined;
  const name = baseName(command)
    .replace(/\.exe$/i, '')
    .toLowerCase();
  if (SHELLS.has(name) && /^-[a-z]*c$/.test(flag ?? '')) return payload;
  if (name === 'cmd' && /^\/[ck]$/i.test(flag ?? '')) return words.slice(2).join(' ');
  return undefined;
}

// Package runners and their subcommands; their flags come before the package name.
const RUNNERS: Record<string, readonly string[] | undefined> = {
  npx: undefined,
  bunx: undefined,
  pnpx: undefined,
  pnpm: ['dlx', 'exec'],
  yarn: ['dlx', 'exec'],
  npm: ['exec', 'x'],
  bun: ['x', 'run'],
};
// Flags of the runners that take a value in the next word.
const VALUE_FLAGS = new Set(['-p', '--package', '-c', '--call', '--cache', '--prefix', '--registry']);
// Interpreters that run a script file given as their first non-flag word.
const INTERPRETERS = new Set(['node', 'nodejs', 'tsx', 'ts-node', 'bun', 'deno']);

/** Drops `npx -y`, `npm exec --`, `node --flag`, `deno run -A` and the like in front of the program. */
function skipLaunchers(words: string[]): string[] {
  let rest = words;
  for (let round = 0; round < 4; round++) {
    const [head, ...tail] = rest;
    if (head === undefined) return rest;
    const name = baseName(head)
      .replace(/\.(cmd|exe)$/i, '')
      .toLowerCase();
    if (Object.hasOwn(RUNNERS, name)) {
      const subcommands = RUNNERS[name];
      let next = tail;
      if (subcommands) {
        if (!subcommands.includes(next[0] ?? '')) {
          if (name !== 'bun') return rest;
        } else next = next.slice(1);
      }
      rest = skipFlags(next);
      continue;
    }
    if (name === 'exec' || name === 'env') {
      // `exec mcpkit …` in a shell line; `env A=1 mcpkit …` sets variables first.
      rest = skipFlags(tail.filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)));
      continue;
    }
    if (INTERPRETERS.has(name)) {
      const next = name === 'deno' && tail[0] === 'run' ? tail.slice(1) : tail;
      rest = skipFlags(next);
      continue;
    }
    return rest;
  }
  return rest;
}

function skipFlags(words: string[]): string[] {
  let i = 0;
  while (i < words.length) {
    const word = words[i] as string;
    if (word === '--') return words.slice(i + 1);
    if (!word.startsWith('-')) break;
    i += VALUE_FLAGS.has(word) ? 2 : 1;
  }
  return words.slice(i);
}

/**
 * `mcpkit`, `mcpkit@1.2`, `@scope/mcpkit`, `mcpkit.cmd`, or a script that is mcpkit's CLI entry: a path through
 * a `mcpkit` directory, the built `dist/bin/main.js`, or `src/cli/main.ts` run from a checkout. Another
 * package's `main.js gateway` is not mcpkit's.
 */
function isMcpkitProgram(word: string): boolean {
  const name = baseName(word).toLowerCase();
  if (/^mcpkit(@[^/]*)?(\.(cmd|exe|js|mjs|cjs|ts))?$/.test(name)) return true;
  const path = word.replaceAll('\\', '/');
  return (
    (/^main\.(js|mjs|cjs|ts)$/.test(name) && /(^|\/)mcpkit(\/|$)/.test(path)) ||
    /(^|\/)dist\/(bin|cli)\/main\.(js|mjs)$/.test(path) ||
    /(^|\/)src\/(bin|cli)\/main\.ts$/.test(path)
  );
}

function firstWord(words: readonly string[]): string | undefined {
  return skipFlags([...words])[0];
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
