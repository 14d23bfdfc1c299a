import { canonicalUri, type ServerHandle, type Skill, type SkillCacheScope } from '../../client/index.js';
import { exposedUri, schemeOf, type UriRoutes } from './uris.js';

/** A skill as the gateway lists it: its entry under exposed URIs, and where it comes from. */
export interface ExposedSkill {
  /** `<server>__<skill name>` (or the name with `--prefix none`): what profiles' `tools` globs match. */
  name: string;
  server: string;
  /** The entry clients see. */
  skill: Skill;
  /** The upstream's own entry. */
  upstream: Skill;
}

/** The caching hints of a listing (2026-07-28): how long it may be kept, and by whom. */
export interface CacheHint {
  ttlMs: number;
  cacheScope: SkillCacheScope;
}

/** The skills of every upstream under exposed URIs, and what the gateway's listing may be cached for. */
export interface CatalogSkills {
  skills: ExposedSkill[];
  /** Exposed `SKILL.md` URI (canonical) → skill. */
  byUri: Map<string, ExposedSkill>;
  /** The least any upstream allows: shortest `ttlMs`, `private` if any is (a 2025 upstream gives none: 0). */
  hint: CacheHint | undefined;
  /** Servers that serve `resources/directory/read`. */
  directoryRead: Set<string>;
  /** Exposed URIs met twice with `--prefix none`: the first server keeps the skill. */
  collisions: string[];
}

/** What one upstream lists: its skills with their hints, or nothing when it does not serve the extension. */
export interface UpstreamSkills {
  skills: Skill[];
  hint: CacheHint;
  directoryRead: boolean;
  /** The schemes its skills live under (namespaced like `skill://`). */
  schemes: Set<string>;
}

/** An upstream's skills (every page; entries that break the rules left out); undefined without them. */
export async function upstreamSkills(connection: ServerHandle): Promise<UpstreamSkills | undefined> {
  const skills = connection.skills;
  if (!skills?.supported) return undefined;
  const listing = await skills.list().catch(() => undefined);
  if (!listing) return undefined;
  const schemes = new Set(listing.skills.map((s) => schemeOf(s.uri)).filter((s) => s !== undefined));
  return {
    skills: listing.skills,
    hint: { ttlMs: listing.ttlMs ?? 0, cacheScope: listing.cacheScope ?? 'private' },
    directoryRead: skills.directoryRead,
    schemes,
  };
}

/** An upstream's skill entry with its URIs (its `SKILL.md`, each file) exposed. */
export function exposedSkill(skill: Skill, rewrite: (uri: string) => string): Skill {
  return {
    ...skill,
    uri: rewrite(skill.uri),
    resources:
      skill.resources === 'dynamic'
        ? 'dynamic'
        : skill.resources.map((file) => ({ ...file, uri: rewrite(file.uri) })),
  };
}

/** The shorter of two hints' lives, and the narrower scope. */
export function leastHint(a: CacheHint, b: CacheHint): CacheHint {
  return {
    ttlMs: Math.min(a.ttlMs, b.ttlMs),
    cacheScope: a.cacheScope === 'private' || b.cacheScope === 'private' ? 'private' : 'public',
  };
}

/** An empty set of skills, to add each upstream's to. */
export function catalogSkills(): CatalogSkills {
  return {
    skills: [],
    byUri: new Map(),
    hint: undefined,
    directoryRead: new Set(),
    collisions: [],
  };
}

/** Adds one upstream's skills under exposed URIs (`name` makes each skill's exposed name). */
export function addSkills(
  into: CatalogSkills,
  server: string,
  listed: UpstreamSkills,
  routes: UriRoutes,
  name: (skill: string) => string,
): void {
  into.hint = leastHint(into.hint ?? listed.hint, listed.hint);
  if (listed.directoryRead) into.directoryRead.add(server);
  const rewrite = (uri: string) => exposedUri(routes, server, uri);
  for (const upstream of listed.skills) {
    const skill = exposedSkill(upstream, rewrite);
    const key = canonicalUri(skill.uri);
    const owner = into.byUri.get(key);
    if (owner) {
      into.collisions.push(`skill "${skill.uri}" of ${server} clashes with ${owner.server}'s`);
      continue;
    }
    const exposed = { name: name(upstream.frontmatter.name), server, skill, upstream };
    into.skills.push(exposed);
    into.byUri.set(key, exposed);
  }
}

/** The skills a profile admits (`admits` as it tests tools: exposed name, server). */
export function profileSkills(
  skills: CatalogSkills,
  admits: (name: string, server: string) => boolean,
): CatalogSkills {
  const kept = skills.skills.filter((s) => admits(s.name, s.server));
  return { ...skills, skills: kept, byUri: new Map(kept.map((s) => [canonicalUri(s.skill.uri), s])) };
}
