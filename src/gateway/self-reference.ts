import { basename } from 'node:path';
import { isStdioServer, type ServerEntry } from '../config/index.js';

/** Package runners that run an npm package's bin: the command itself, or the command plus a subcommand. */
const RUNNERS = new Set(['npx', 'pnpx', 'bunx']);
const RUNNER_SUBCOMMANDS: Record<string, readonly string[]> = {
  npm: ['exec', 'x'],
  pnpm: ['dlx', 'exec'],
  yarn: ['dlx', 'exec'],
  bun: ['x'],
};
/** Runner options that take a value (the next word, unless written `--option=value`). */
const RUNNER_VALUE_OPTIONS = new Set(['-p', '--package', '-c', '--call', '--cache', '--registry']);
/** Node options that take a value. */
const NODE_VALUE_OPTIONS = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '--env-file',
  '-C',
  '--conditions',
]);

/**
 * Whether a server entry runs `mcpkit gateway` — in any spelling: `mcpkit gateway`, `npx -y mcpkit gateway`,
 * `npx -y mcpkit@1.2.3 gateway`, `pnpm dlx mcpkit gateway`, `node …/mcpkit/dist/cli/main.js gateway`,
 * `env X=1 mcpkit gateway`. A gateway must never start such an entry: it would start itself, which starts
 * itself again (one config serving the gateway that serves it). Also for `mcpkit import` / `add`, which
 * skip such an entry.
 *
 * @example
 * isGatewayCommand({ command: 'npx', args: ['-y', 'mcpkit', 'gateway'] }); // true
 */
export function isGatewayCommand(entry: ServerEntry): boolean {
  if (!isStdioServer(entry)) return false;
  let words = [entry.command, ...(entry.args ?? [])];
  // `env VAR=value … command …` runs the command.
  while (words.length > 0 && programName(words[0] as string) === 'env') {
    words = words.slice(1);
    while (words[0] !== undefined && (words[0].startsWith('-') || /^\w+=/.test(words[0])))
      words = words.slice(1);
  }
  const [command, ...args] = words;
  if (command === undefined) return false;
  const program = programName(command);
  if (program === 'mcpkit') return positionals(args, new Set())[0] === 'gateway';
  if (RUNNERS.has(program)) return runsMcpkitGateway(args);
  const subcommands = RUNNER_SUBCOMMANDS[program];
  if (subcommands?.includes(args[0] ?? '')) return runsMcpkitGateway(args.slice(1));
  if (program === 'node' || program === 'nodejs' || command === process.execPath) {
    const script = positionals(args, NODE_VALUE_OPTIONS);
    return script[0] !== undefined && isMcpkitScript(script[0]) && script[1] === 'gateway';
  }
  return false;
}

/** A command's program, without directory and Windows extension: `/usr/bin/npx.cmd` → `npx`. */
function programName(command: string): string {
  return basename(command.replaceAll('\\', '/'))
    .toLowerCase()
    .replace(/\.(cmd|exe|ps1|bat)$/, '');
}

/** The runner's words name the mcpkit package (`mcpkit`, `mcpkit@…`, or `-p mcpkit …`) and then `gateway`. */
function runsMcpkitGateway(args: readonly string[]): boolean {
  const words = positionals(args, RUNNER_VALUE_OPTIONS);
  const [bin, subcommand] = words;
  if (bin === undefined) return false;
  return packageName(bin) === 'mcpkit' && subcommand === 'gateway';
}

/** `mcpkit@1.2.3` → `mcpkit`; `@scope/x@1` → `@scope/x`. */
function packageName(spec: string): string {
  const at = spec.indexOf('@', 1);
  return at === -1 ? spec : spec.slice(0, at);
}

/** The words that are not options (nor the values of options that take one); `--` ends the options. */
function positionals(args: readonly string[], valueOptions: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (word === '--') return [...out, ...args.slice(i + 1)];
    if (out.length > 0 || !word.startsWith('-')) out.push(word);
    else if (valueOptions.has(word)) i++;
  }
  return out;
}

/** mcpkit's CLI script: a path through a `mcpkit` directory, or the package's `dist/cli/main.js` / `bin/mcpkit`. */
function isMcpkitScript(script: string): boolean {
  const path = script.replaceAll('\\', '/');
  return (
    /(^|\/)mcpkit(\/|$)/.test(path) ||
    /(^|\/)dist\/cli\/main\.js$/.test(path) ||
    /(^|\/)bin\/mcpkit(\.js)?$/.test(path)
  );
}
