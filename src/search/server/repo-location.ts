import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { McpkitError } from '../../errors/index.js';
import { isInside } from '../files/repo-file.js';
import { type CheckedUrl, checkCloneUrl } from './clone.js';

/** Where a tool's `repo` points: the cache key (a real directory, or a URL's href) and, for a URL, its check. */
export interface RepoLocation {
  key: string;
  clone?: CheckedUrl;
}

/** Options for {@link repoLocator}. */
export interface RepoLocatorOptions {
  /** The repository of a call that names none; a relative `repo` is resolved against it. */
  root: string;
  /** Other directories a call may name (the root is always allowed). */
  allowPaths: readonly string[];
  /** `MCPKIT_ALLOW_PRIVATE_CLONE=1` lets a clone reach private addresses (tests, a local git server). */
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Resolves a tool's `repo`: none is the root; a URL must pass the clone checks (SSRF guard); a path must exist
 * and lie, symlinks resolved, inside an allowed directory. A refusal is an INVALID_ARGUMENT McpkitError saying
 * why, which the tools answer as an `isError` result.
 */
export function repoLocator(
  options: RepoLocatorOptions,
): (repo: string | undefined) => Promise<RepoLocation> {
  const root = resolve(options.root);
  const allowed = [root, ...options.allowPaths.map((p) => resolve(p))];
  /** The allowed directories with symlinks resolved, once. */
  let allowedReal: Promise<string[]> | undefined;
  return async (repo) => {
    if (repo === undefined) return { key: root };
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(repo) || /^[\w.-]+@[\w.-]+:/.test(repo)) {
      try {
        const clone = await checkCloneUrl(repo, options.env.MCPKIT_ALLOW_PRIVATE_CLONE === '1');
        return { key: clone.url.href, clone };
      } catch (error) {
        throw refuse(`"repo" refused: ${(error as Error).message}`);
      }
    }
    const dir = await realpath(resolve(root, repo)).catch(() => {
      throw refuse(`"repo" ${repo} does not exist`);
    });
    allowedReal ??= Promise.all(allowed.map((base) => realpath(base).catch(() => base)));
    if (!(await allowedReal).some((base) => isInside(dir, base)))
      throw refuse(`"repo" ${repo} is outside the directories this server may read (${allowed.join(', ')})`);
    return { key: dir };
  };
}

const refuse = (message: string) => new McpkitError('INVALID_ARGUMENT', message);
