import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { SkillVerificationError } from '@modelcontextprotocol/client/ext/skills';
import { McpkitError } from '../errors/index.js';
import type { RequestOptions } from './server-handle.js';
import { canonicalUri, type ServerSkills, type Skill, type SkillFile } from './skills.js';

/** What {@link readSkill} and {@link installSkill} found: the entry, and each file as read and verified. */
export interface ReadSkill {
  skill: Skill;
  /** `SKILL.md` first, then the other files in the entry's order; `path` relative to the skill's folder. */
  files: (SkillFile & { path: string })[];
}

/** Options for {@link installSkill}. */
export interface InstallSkillOptions extends RequestOptions {
  /** Replace a folder of the skill's name that is there already. */
  force?: boolean;
}

/** Where {@link installSkill} put a skill. */
export interface InstalledSkill extends ReadSkill {
  /** The skill's folder: `<dir>/<name>`. */
  folder: string;
}

/**
 * A file's path inside the skill's folder, from its URI: every segment decoded and checked. A file outside
 * the folder (`..`, an encoded `/`, a NUL) is refused in one line.
 */
export function skillFilePath(skill: Skill, uri: string): string {
  const root = canonicalUri(skill.uri).slice(0, -'SKILL.md'.length);
  const file = canonicalUri(uri);
  const refuse = () =>
    new McpkitError(
      'INVALID_ARGUMENT',
      `skill "${skill.uri}" lists a file outside its folder ("${uri}"); nothing was written`,
    );
  if (!file.startsWith(root) || file.length === root.length) throw refuse();
  const segments = file.slice(root.length).split('/');
  const decoded = segments.map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw refuse();
    }
  });
  if (decoded.some((s) => s === '' || s === '.' || s === '..' || /[/\\\0]/u.test(s) || /^[A-Za-z]:/u.test(s)))
    throw refuse();
  return decoded.join('/');
}

/**
 * Reads a skill whole: its entry (from `skills/list`, else `skills/get`) and every file it lists, each
 * checked against the entry's size and SHA-256 digest (and `SKILL.md` against its frontmatter), `SKILL.md`
 * first: a file that fails is a one-line error, and nothing after it is read.
 */
export async function readSkill(
  skills: ServerSkills,
  uri: string,
  options: RequestOptions = {},
): Promise<ReadSkill> {
  // The entry as the listing has it (what a host holds before it loads a skill); `skills/get` for one not listed.
  const key = canonicalUri(uri);
  const held = (await skills.list(options)).skills.find((entry) => canonicalUri(entry.uri) === key);
  const skill = held ?? (await skills.get(uri, options)).skill;
  if (skill.resources === 'dynamic')
    throw new McpkitError(
      'INVALID_ARGUMENT',
      `skill "${skill.uri}" does not list its files ("dynamic"): it cannot be read whole`,
    );
  const listed = [
    ...skill.resources.filter((r) => r.uri === skill.uri),
    ...skill.resources.filter((r) => r.uri !== skill.uri),
  ];
  const paths = listed.map((file) => skillFilePath(skill, file.uri));
  const files: ReadSkill['files'] = [];
  for (const [index, file] of listed.entries()) {
    try {
      const read = await skills.read(skill, file.uri, options);
      files.push({ ...read, path: paths[index] as string });
    } catch (error) {
      if (!(error instanceof SkillVerificationError)) throw error;
      const said = error.message.split('\n')[0];
      throw new McpkitError(
        'REQUEST_FAILED',
        `skill "${skill.uri}" failed verification (${error.reason}): ${said}; nothing was written`,
        { cause: error },
      );
    }
  }
  return { skill, files };
}

/**
 * Installs a skill as a folder an agent that reads skills from disk can use (Claude Code's
 * `.claude/skills/<name>/SKILL.md`): `<dir>/<name>/` with every file the entry lists, verified before
 * anything is written, written into a fresh folder first and moved into place at the end.
 *
 * @example
 * await installSkill(runtime.server('docs').skills, 'skill://pdf/SKILL.md', '.claude/skills');
 */
export async function installSkill(
  skills: ServerSkills,
  uri: string,
  dir: string,
  options: InstallSkillOptions = {},
): Promise<InstalledSkill> {
  const read = await readSkill(skills, uri, options);
  const name = read.skill.frontmatter.name;
  const base = resolve(dir);
  const folder = join(base, name);
  if (dirname(folder) !== base)
    throw new McpkitError('INVALID_ARGUMENT', `skill name "${name}" is not a folder name`);
  const there = await stat(folder).catch(() => undefined);
  if (there && !options.force)
    throw new McpkitError(
      'INVALID_ARGUMENT',
      `${folder} exists already; remove it or pass --force to replace it`,
    );
  const fresh = join(base, `.${name}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    for (const file of read.files) {
      const target = resolve(fresh, file.path);
      if (!target.startsWith(fresh + sep))
        throw new McpkitError(
          'INVALID_ARGUMENT',
          `skill file "${file.uri}" would be written outside ${folder}`,
        );
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, file.bytes);
    }
    if (there) await rm(folder, { recursive: true, force: true });
    await rename(fresh, folder);
  } finally {
    await rm(fresh, { recursive: true, force: true });
  }
  return { ...read, folder };
}
