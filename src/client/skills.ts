import type { Client } from '@modelcontextprotocol/client';
import {
  type DirectoryResource,
  SKILLS_EXTENSION_ID,
  type Skill,
  type SkillCacheScope,
  type SkillFile,
  type SkillListing,
  SkillsClient,
} from '@modelcontextprotocol/client/ext/skills';

export type { DirectoryResource, Skill, SkillCacheScope, SkillFile, SkillListing };
export { SKILLS_EXTENSION_ID };

/** A skills request's options: `RequestOptions` of `server-handle.ts`, restated (it imports this file). */
type RequestOptions = { signal?: AbortSignal };

/** The WHATWG spelling of a URI (`..` resolved, escapes normalised), as the Skills extension compares. */
export function canonicalUri(uri: string): string {
  try {
    return new URL(uri).href;
  } catch {
    return uri;
  }
}

/** A `skills/get` answer: the entry, with its 2026-07-28 caching hints. */
export interface SkillAnswer {
  skill: Skill;
  ttlMs?: number;
  cacheScope?: SkillCacheScope;
}

/** A directory of a skill (`resources/directory/read`, every page), with its caching hints. */
export interface SkillDirectory {
  resources: DirectoryResource[];
  ttlMs?: number;
  cacheScope?: SkillCacheScope;
}

/**
 * The skills of one server (the Skills extension, SEP-2640), over the SDK's `SkillsClient`: every file read
 * is checked against the entry (size, SHA-256 digest, and the frontmatter of `SKILL.md`).
 *
 * @example
 * const { skills } = await runtime.server('docs').skills.list();
 * const manifest = await runtime.server('docs').skills.read(skills[0]!);
 */
export interface ServerSkills {
  /** The server declares `io.modelcontextprotocol/skills` (false before it is ready). */
  readonly supported: boolean;
  /** It serves `resources/directory/read`. */
  readonly directoryRead: boolean;
  /** Every skill, all pages; entries that break the extension's rules come in `invalid`, not thrown. */
  list(options?: RequestOptions): Promise<SkillListing>;
  /** One skill by the URI of its `SKILL.md`, listed or not. */
  get(uri: string, options?: RequestOptions): Promise<SkillAnswer>;
  /** A file of the skill (`ref` relative to its folder; default `SKILL.md`), verified. */
  read(skill: Skill, ref?: string, options?: RequestOptions): Promise<SkillFile>;
  /** The direct children of a directory of a skill. */
  readDirectory(uri: string, options?: RequestOptions): Promise<SkillDirectory>;
}

/** What the skills of a connection need: its SDK client now, and the way it runs requests. */
export interface SkillsChannel {
  readonly client: Client | undefined;
  run<T>(request: (client: Client) => Promise<T>): Promise<T>;
  timeoutMs(): number;
}

/** The {@link ServerSkills} of one connection (a `SkillsClient` per SDK client: a reconnect makes one). */
export function serverSkills(channel: SkillsChannel): ServerSkills {
  const made = new WeakMap<Client, SkillsClient>();
  const of = (client: Client) => {
    let skills = made.get(client);
    if (!skills) {
      skills = new SkillsClient(client, { skipInvalid: true });
      made.set(client, skills);
    }
    return skills;
  };
  const options = (given: RequestOptions = {}) => ({
    timeout: channel.timeoutMs(),
    ...(given.signal ? { signal: given.signal } : {}),
  });
  return {
    get supported() {
      return channel.client ? of(channel.client).supported : false;
    },
    get directoryRead() {
      return channel.client ? of(channel.client).directoryRead : false;
    },
    list: (given) =>
      channel.run((client) =>
        of(client).supported
          ? of(client).list({}, options(given))
          : Promise.resolve({ skills: [], invalid: [] }),
      ),
    get: (uri, given) => channel.run((client) => of(client).get(uri, options(given))),
    read: (skill, ref, given) => channel.run((client) => of(client).read(skill, ref, options(given))),
    readDirectory: (uri, given) => channel.run((client) => of(client).readDirectory(uri, options(given))),
  };
}
