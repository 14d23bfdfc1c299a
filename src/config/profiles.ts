import { z } from 'zod';
import { McpkitError } from '../errors/index.js';
import { readJsonDocument } from '../internal/json-document.js';
import { type ConfigLocationOptions, configFile, SCOPES } from './paths.js';
import { formatIssues, ServerNameSchema } from './schema.js';

/** The key of a config file that holds the gateway's profiles. */
export const PROFILES_KEY = 'profiles';

/** A profile name: it is a path segment of the gateway's HTTP endpoint (`/mcp/<profile>`). */
export const ProfileNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 characters of A-Z a-z 0-9 _ -');

/**
 * A named tool set of `mcpkit gateway` (`profiles.<name>` of a config file): every tool of `servers`, plus the
 * tools whose exposed names match a `tools` glob, minus those matching an `exclude` glob. Neither `servers`
 * nor `tools`: every tool (then `exclude`). Globs: `*` any run of characters, `?` one.
 */
export const ProfileSchema = z.looseObject({
  servers: z.array(ServerNameSchema).optional(),
  tools: z.array(z.string().min(1)).optional(),
  exclude: z.array(z.string().min(1)).optional(),
  description: z.string().optional(),
});

/** One profile of the gateway (see {@link ProfileSchema}). */
export type Profile = z.infer<typeof ProfileSchema>;

/** The profiles of both scopes (project wins on a shared name), where they were read, and what was skipped. */
export interface LoadedProfiles {
  profiles: Record<string, Profile>;
  /** The files read, project first (for messages). */
  files: string[];
  warnings: string[];
}

/** Reads `profiles` of the project and user config files; an invalid profile is skipped with a warning. */
export async function loadProfiles(options: ConfigLocationOptions = {}): Promise<LoadedProfiles> {
  const profiles: Record<string, Profile> = {};
  const warnings: string[] = [];
  const files: string[] = [];
  for (const scope of SCOPES) {
    const doc = await readJsonDocument(configFile(scope, options));
    files.push(doc.file);
    const section = doc.value[PROFILES_KEY];
    if (section === undefined) continue;
    if (typeof section !== 'object' || section === null || Array.isArray(section)) {
      warnings.push(`${doc.file}: ${PROFILES_KEY}: must be an object; no profiles loaded from this file`);
      continue;
    }
    for (const [name, value] of Object.entries(section)) {
      if (Object.hasOwn(profiles, name)) continue;
      const named = ProfileNameSchema.safeParse(name);
      const parsed = ProfileSchema.safeParse(value);
      if (!named.success)
        warnings.push(
          `${doc.file}: ${PROFILES_KEY}.${name}: invalid name: ${named.error.issues[0]?.message}`,
        );
      else if (!parsed.success)
        warnings.push(
          `${doc.file}: ${formatIssues(
            parsed.error.issues.map((i) => ({ path: i.path as (string | number)[], message: i.message })),
            [PROFILES_KEY, name],
          )}; profile "${name}" skipped`,
        );
      else profiles[name] = parsed.data;
    }
  }
  return { profiles, files, warnings };
}

/** The profile named, or a USAGE error naming the files looked in and the profiles there are. */
export function findProfile(loaded: LoadedProfiles, name: string): Profile {
  const profile = Object.hasOwn(loaded.profiles, name) ? loaded.profiles[name] : undefined;
  if (profile) return profile;
  const names = Object.keys(loaded.profiles);
  throw new McpkitError(
    'USAGE',
    `no profile "${name}" in ${loaded.files.join(' or ')}; ` +
      (names.length > 0
        ? `the profiles there: ${names.join(', ')}`
        : `there are none: add one under "${PROFILES_KEY}" (see docs/gateway.md)`),
  );
}
