import type { Profile } from '../config/index.js';
import { McpkitError } from '../errors/index.js';
import type { Catalog } from './catalog.js';
import { profileSkills } from './extensions/skills.js';

/** Whether a tool (its exposed name, its server) belongs to a profile. */
export type ProfileFilter = (name: string, server: string) => boolean;

/** `*` matches any run of characters, `?` one; everything else itself. */
function globPattern(globs: readonly string[]): RegExp {
  const one = (glob: string) =>
    glob
      .split(/([*?])/u)
      .map((part) => (part === '*' ? '.*' : part === '?' ? '.' : part.replace(/[\\^$.|+()[\]{}]/gu, '\\$&')))
      .join('');
  return new RegExp(`^(?:${globs.map(one).join('|')})$`, 'su');
}

/**
 * A profile as a test on tools: every tool of its `servers`, plus those whose exposed names match a `tools`
 * glob (neither given: every tool), minus those matching an `exclude` glob.
 */
export function profileFilter(profile: Profile): ProfileFilter {
  const servers = profile.servers === undefined ? undefined : new Set(profile.servers);
  const tools = profile.tools === undefined ? undefined : globPattern(profile.tools);
  const exclude = profile.exclude === undefined ? undefined : globPattern(profile.exclude);
  return (name, server) => {
    const chosen =
      servers === undefined && tools === undefined
        ? true
        : (servers?.has(server) ?? false) || (tools?.test(name) ?? false);
    return chosen && !(exclude?.test(name) ?? false);
  };
}

/**
 * What one profile of the gateway serves: its tools and skills of the catalog (and the hidden tools among
 * them, so pins speak of its tools only); prompts and resources are the whole catalog's. Worked out once per
 * catalog.
 */
export class ProfileView {
  private last: { from: Catalog; view: Catalog } | undefined;

  constructor(
    /** The profile's name. */
    readonly name: string,
    private filter: ProfileFilter,
  ) {}

  /** Whether a tool (exposed name, server) is in the profile as it is now. */
  readonly admits: ProfileFilter = (name, server) => this.filter(name, server);

  /** The profile changed in the config (or went: nothing is in it then). */
  update(profile: Profile | undefined): void {
    this.filter = profile ? profileFilter(profile) : () => false;
    this.last = undefined;
  }

  /** The catalog as this profile shows it. */
  of(catalog: Catalog): Catalog {
    if (this.last?.from === catalog) return this.last.view;
    const tools = catalog.tools.filter((t) => this.admits(t.name, t.server));
    const view: Catalog = {
      ...catalog,
      tools,
      toolsByName: new Map(tools.map((t) => [t.name, t])),
      hidden: new Map([...catalog.hidden].filter(([name, h]) => this.admits(name, h.server))),
      // Skills are chosen as tools are: by server, or by `<server>__<skill name>` against the globs.
      skills: profileSkills(catalog.skills, this.admits),
    };
    this.last = { from: catalog, view };
    return view;
  }
}

/** The profile named in `profiles`, as a view; an unknown name is an INVALID_ARGUMENT naming those there are. */
export function profileView(profiles: Readonly<Record<string, Profile>>, name: string): ProfileView {
  const profile = Object.hasOwn(profiles, name) ? profiles[name] : undefined;
  if (!profile) {
    const names = Object.keys(profiles);
    throw new McpkitError(
      'INVALID_ARGUMENT',
      `no profile "${name}"; ${names.length > 0 ? `the profiles: ${names.join(', ')}` : 'no profiles are configured'}`,
    );
  }
  return new ProfileView(name, profileFilter(profile));
}
