import { resolve } from 'node:path';
import { findCommand } from '../config/command-path.js';
import { findPrlimit } from '../internal/resource-limits.js';
import type { ArgumentContract } from './contract.js';
import type { LoadedContract } from './load-contract.js';

/**
 * What a valid contract may still get wrong on this machine or in its safety (`mcpkit bridge lint`):
 * - a program that is not on PATH (every call of its tools would fail with "not found"), one message per
 *   program naming the tools that run it;
 * - the bridge's whole environment handed to tools (`inheritEnv: true`: tokens and keys included);
 * - an argument that looks like a file or directory but has no `path` rule: any file on the machine;
 * - memory/cpu limits where prlimit is missing (calls with limits would fail).
 */
export async function contractWarnings(
  loaded: LoadedContract,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): Promise<string[]> {
  const { contract, file } = loaded;
  const warnings: string[] = [];
  const programs = new Map<string, string[]>();
  for (const [name, tool] of Object.entries(contract.tools)) {
    if (tool.module !== undefined) continue;
    const program = tool.program ?? contract.program;
    if (program !== undefined) programs.set(program, [...(programs.get(program) ?? []), name]);
  }
  for (const [program, names] of programs) {
    // A program with a directory in it runs relative to the bridge's working directory.
    const command = program.includes('/') ? resolve(cwd, program) : program;
    if ((await findCommand(command, env.PATH ?? '', process.platform, env)) !== undefined) continue;
    const where = program.includes('/') ? `not an executable file (from ${cwd})` : 'not found on PATH';
    warnings.push(
      `${file}: program "${program}" is ${where}; calls to ${names.join(', ')} will fail until it is installed`,
    );
  }
  if (contract.inheritEnv === true)
    warnings.push(
      `${file}: inheritEnv: true passes the bridge's whole environment (tokens, keys) to every tool; list the variables they need instead`,
    );
  for (const [name, tool] of Object.entries(contract.tools)) {
    for (const [argName, arg] of Object.entries(tool.args ?? {})) {
      if (arg.path === undefined && looksLikePath(argName, arg))
        warnings.push(
          `${file}: tools.${name}.args.${argName} looks like a path but has no path: { roots: [...] }; it can name any file on the machine`,
        );
    }
  }
  const limited = [contract, ...Object.values(contract.tools)].some(
    (t) => t.memory !== undefined || t.cpu !== undefined,
  );
  if (limited && findPrlimit(env.PATH) === undefined)
    warnings.push(
      `${file}: memory/cpu limits need prlimit (util-linux), which is not installed; calls with limits will fail`,
    );
  return warnings;
}

const PATH_WORDS = new Set([
  'path',
  'paths',
  'file',
  'files',
  'filename',
  'filenames',
  'dir',
  'dirs',
  'directory',
  'directories',
  'folder',
  'folders',
  'repo',
  'repos',
  'repository',
  'root',
  'cwd',
]);

/** A string argument whose name (a word of it: fooPath, input_file) or description says it is a path. */
function looksLikePath(name: string, arg: ArgumentContract): boolean {
  const stringy = arg.type === 'string' || (arg.type === 'array' && arg.items?.type === 'string');
  if (!stringy || arg.enum !== undefined) return false;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_-]+/);
  if (words.some((w) => PATH_WORDS.has(w))) return true;
  return /^(the )?(path|file|directory)\b/i.test(arg.description ?? '');
}
