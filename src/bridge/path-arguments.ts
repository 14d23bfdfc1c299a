import { realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { expandVariables } from '../config/variables.js';
import { McpkitError } from '../errors/index.js';
import type { ToolContract } from './contract.js';

/** Linux's PATH_MAX: no longer path can be opened, and resolving one costs a syscall per level. */
const PATH_MAX = 4096;

/** A tool's path arguments, their roots expanded and made absolute once, at start. */
export interface PathArguments {
  /** Arguments confined to fixed roots, in declaration order. */
  rooted: { name: string; roots: string[] }[];
  /** Arguments confined to (and resolved against) the value of another path argument. */
  within: { name: string; base: string }[];
}

/**
 * The path rules of a tool. Roots are `${VAR}`-expanded against the bridge's environment (an unset
 * variable is a start-up error, as in `env`) and resolved against the contract's directory.
 */
export function pathArgumentsOf(
  tool: ToolContract,
  contractDir: string,
  env: Readonly<Record<string, string | undefined>>,
  toolName: string,
): PathArguments {
  const rules: PathArguments = { rooted: [], within: [] };
  for (const [name, arg] of Object.entries(tool.args ?? {})) {
    const rule = arg.path;
    if (rule === undefined) continue;
    if ('within' in rule) {
      rules.within.push({ name, base: rule.within });
      continue;
    }
    const roots = rule.roots.map((root) =>
      resolve(
        contractDir,
        expandVariables(root, env, (variable) => {
          throw new McpkitError(
            'CONTRACT_INVALID',
            `tools.${toolName}.args.${name}.path.roots uses \${${variable}}, which is not set; set it or write \${${variable}:-default}`,
          );
        }),
      ),
    );
    rules.rooted.push({ name, roots });
  }
  return rules;
}

/**
 * Checks every path argument of a call and returns the arguments with each path replaced by its
 * resolved form, so the program opens exactly what was checked. Relative values resolve against `cwd`
 * (where the program runs), or against the value of the `within` argument.
 */
export async function confinePaths(
  rules: PathArguments,
  args: Readonly<Record<string, unknown>>,
  cwd: string,
): Promise<{ ok: true; args: Record<string, unknown> } | { ok: false; problems: string[] }> {
  const out: Record<string, unknown> = { ...args };
  const problems: string[] = [];
  const confine = async (name: string, base: string, roots: readonly string[], shown: string) => {
    const value = args[name];
    if (value === undefined) return;
    const items = Array.isArray(value) ? value : [value];
    const resolved: string[] = [];
    for (const item of items) {
      if (typeof item !== 'string') continue;
      const absolute = resolve(base, item);
      if (Buffer.byteLength(absolute) > PATH_MAX) {
        problems.push(`argument ${name}: longer than ${PATH_MAX} bytes`);
        continue;
      }
      const real = await resolveReal(absolute);
      const inside = await someInside(real, roots);
      if (!inside) problems.push(`argument ${name}: "${item}" resolves to ${real}, outside ${shown}`);
      resolved.push(real);
    }
    out[name] = Array.isArray(value) ? resolved : resolved[0];
  };
  for (const { name, roots } of rules.rooted)
    await confine(name, cwd, roots, `the allowed roots ${roots.join(', ')}`);
  for (const { name, base } of rules.within) {
    if (args[name] === undefined) continue;
    const dir = out[base];
    if (typeof dir !== 'string') {
      problems.push(`argument ${name}: needs argument ${base}, the directory it lies in`);
      continue;
    }
    await confine(name, dir, [dir], `${base} (${dir})`);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, args: out };
}

/**
 * The real path of `path`; for a path that does not exist (yet), the real path of its nearest existing
 * ancestor with the rest appended, so a link anywhere on the way is followed.
 */
async function resolveReal(path: string): Promise<string> {
  const rest: string[] = [];
  for (let current = path; ; ) {
    try {
      return join(await realpath(current), ...rest);
    } catch {
      // Missing, a loop, no permission, a NUL byte: look one level up (the program meets the same error).
      const parent = dirname(current);
      if (parent === current) return path;
      rest.unshift(basename(current));
      current = parent;
    }
  }
}

async function someInside(real: string, roots: readonly string[]): Promise<boolean> {
  for (const root of roots) {
    const base = await resolveReal(root);
    if (real === base || real.startsWith(base.endsWith(sep) ? base : base + sep)) return true;
  }
  return false;
}
