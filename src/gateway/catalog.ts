import type {
  Prompt,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/client';
import { UriTemplate } from '@modelcontextprotocol/server';
import { type ServerHandle, safeToolName } from '../client/index.js';
import { exposedToolMeta } from './extensions/apps.js';
import { addSkills, type CatalogSkills, catalogSkills, upstreamSkills } from './extensions/skills.js';
import { addRoute, exposedUri, type UriRoutes, uriRoutes } from './extensions/uris.js';
import type { PinMode, PinStore } from './pins.js';

/** How upstream names are exposed: `<server>__<name>` (default) or unchanged. */
export type PrefixMode = 'server' | 'none';

/** A tool as the gateway serves it. */
export interface ExposedTool {
  /** The name clients see. */
  name: string;
  server: string;
  /** Its name on the upstream. */
  tool: string;
  /** The upstream definition under the exposed name. */
  definition: Tool;
  /** From a server with `alwaysLoad: true`: listed even in deferred mode. */
  alwaysLoad: boolean;
}

/** A prompt as the gateway serves it. */
export interface ExposedPrompt {
  name: string;
  server: string;
  prompt: string;
  definition: Prompt;
}

/** Why a tool of an upstream is not served. */
export interface HiddenTool {
  server: string;
  tool: string;
  reason: string;
}

/** Everything the upstreams offer right now, under the names clients see. */
export interface Catalog {
  tools: ExposedTool[];
  toolsByName: Map<string, ExposedTool>;
  hidden: Map<string, HiddenTool>;
  prompts: ExposedPrompt[];
  promptsByName: Map<string, ExposedPrompt>;
  resources: Resource[];
  resourceServer: Map<string, string>;
  templates: { template: ResourceTemplate; server: string; matcher: UriTemplate | undefined }[];
  /** Name clashes met with `prefix: none` (the first server keeps the name). */
  collisions: string[];
  /** The skills of every upstream that serves the Skills extension (`extensions/skills.ts`). */
  skills: CatalogSkills;
  /** How exposed URIs of skills and apps' pages lead to their upstream (`extensions/uris.ts`). */
  uris: UriRoutes;
}

/** A server entry's own naming for the gateway: `prefix` (an alias for the server name) and `rename`. */
export interface ServerNaming {
  /** Put before each tool and prompt name instead of the server's name. */
  prefix?: string | undefined;
  /** Tools under another name: upstream name → the name used in the exposed name. */
  rename?: Readonly<Record<string, string>> | undefined;
}

/** An upstream to gather from. */
export interface CatalogSource {
  connection: ServerHandle;
  alwaysLoad: boolean;
  /** The entry's `prefix` and `rename`. */
  naming?: ServerNaming;
}

/** Options for {@link buildCatalog}. */
export interface CatalogOptions {
  prefix: PrefixMode;
  /** A list an upstream failed to give (its items are left out of this catalog): told, not hidden. */
  onListFailed?: (server: string, list: string, error: unknown) => void;
  pins?: {
    store: PinStore;
    mode: PinMode;
    onChanged: (server: string, tool: string) => void;
    /** Servers whose tools are not pinned (those that ship with mcpkit change with it). */
    exempt?: ReadonlySet<string>;
  };
}

/**
 * The exposed name of an upstream tool or prompt: valid for every LLM API, stable across runs. `naming` is
 * the server entry's own: its `prefix` stands for the server name, its `rename` for a tool's own name.
 */
export function exposedName(
  prefix: PrefixMode,
  server: string,
  name: string,
  naming: ServerNaming = {},
): string {
  const own = (naming.rename && Object.hasOwn(naming.rename, name) ? naming.rename[name] : undefined) ?? name;
  return safeToolName(prefix === 'none' ? own : `${naming.prefix ?? server}__${own}`);
}

/** A clash as a user reads it: both servers, and each one's own name when it differs from the exposed one. */
function clash(kind: string, name: string, server: string, own: string, owner: string, ownerOwn: string) {
  const theirs = (n: string) => (n === name ? '' : ` ("${n}")`);
  return `${kind} "${name}" of ${server}${theirs(own)} clashes with ${owner}'s${theirs(ownerOwn)}`;
}

/**
 * Gathers the lists of every ready upstream (in parallel) into one catalog. A server whose listing fails
 * contributes nothing this time (`onListFailed` hears why); pins are checked here, so a changed tool is hidden before anyone sees it.
 */
export async function buildCatalog(
  sources: readonly CatalogSource[],
  options: CatalogOptions,
): Promise<Catalog> {
  const lists = await Promise.all(
    sources.map(async ({ connection, alwaysLoad, naming }) => {
      const failed = (list: string) => (error: unknown) => {
        options.onListFailed?.(connection.id, list, error);
        return [];
      };
      const [tools, prompts, resources, templates, skills] = await Promise.all([
        connection.listTools().catch(failed('tools')),
        connection.listPrompts().catch(failed('prompts')),
        connection.listResources().catch(failed('resources')),
        connection.listResourceTemplates().catch(failed('resource templates')),
        upstreamSkills(connection),
      ]);
      return { server: connection.id, alwaysLoad, naming, tools, prompts, resources, templates, skills };
    }),
  );
  const catalog: Catalog = {
    tools: [],
    toolsByName: new Map(),
    hidden: new Map(),
    prompts: [],
    promptsByName: new Map(),
    resources: [],
    resourceServer: new Map(),
    templates: [],
    collisions: [],
    skills: catalogSkills(),
    uris: uriRoutes(options.prefix !== 'none'),
  };
  for (const { server, naming, skills } of lists)
    addRoute(catalog.uris, server, naming?.prefix ?? server, skills?.schemes ?? []);
  for (const { server, alwaysLoad, naming, tools, prompts, resources, templates, skills } of lists) {
    const uri = (upstream: string) => exposedUri(catalog.uris, server, upstream);
    for (const tool of tools) {
      const name = exposedName(options.prefix, server, tool.name, naming);
      const pins = options.pins;
      if (
        pins &&
        pins.mode !== 'off' &&
        !pins.exempt?.has(server) &&
        pins.store.check(server, tool) === 'changed'
      ) {
        pins.onChanged(server, tool.name);
        if (pins.mode === 'strict') {
          catalog.hidden.set(name, {
            server,
            tool: tool.name,
            reason: `its definition changed since it was pinned; run \`mcpkit trust ${server}\` to accept it`,
          });
          continue;
        }
      }
      const owner = catalog.toolsByName.get(name);
      if (owner) {
        catalog.collisions.push(clash('tool', name, server, tool.name, owner.server, owner.tool));
        continue;
      }
      const exposed: ExposedTool = {
        name,
        server,
        tool: tool.name,
        definition: withMeta({ ...tool, name }, exposedToolMeta(tool._meta, uri)),
        alwaysLoad,
      };
      catalog.tools.push(exposed);
      catalog.toolsByName.set(name, exposed);
    }
    for (const prompt of prompts) {
      // A prompt takes the server's prefix; `rename` is for tools.
      const name = exposedName(options.prefix, server, prompt.name, { prefix: naming?.prefix });
      const owner = catalog.promptsByName.get(name);
      if (owner) {
        catalog.collisions.push(clash('prompt', name, server, prompt.name, owner.server, owner.prompt));
        continue;
      }
      const exposed: ExposedPrompt = { name, server, prompt: prompt.name, definition: { ...prompt, name } };
      catalog.prompts.push(exposed);
      catalog.promptsByName.set(name, exposed);
    }
    // Resource URIs are kept as they are: they are addresses, and servers put them in their results. Those
    // of skills and apps' pages are namespaced (`extensions/uris.ts`): two servers serve the same ones.
    for (const listed of resources) {
      const resource = { ...listed, uri: uri(listed.uri) };
      if (catalog.resourceServer.has(resource.uri)) continue;
      catalog.resourceServer.set(resource.uri, server);
      catalog.resources.push(resource);
    }
    for (const listed of templates) {
      const template = { ...listed, uriTemplate: uri(listed.uriTemplate) };
      // Two servers with one template (two copies of server-everything): the first serves it, as with URIs.
      if (catalog.templates.some((t) => t.template.uriTemplate === template.uriTemplate)) continue;
      let matcher: UriTemplate | undefined;
      try {
        matcher = new UriTemplate(template.uriTemplate);
      } catch {
        matcher = undefined;
      }
      catalog.templates.push({ template, server, matcher });
    }
    if (skills)
      addSkills(catalog.skills, server, skills, catalog.uris, (skill) =>
        exposedName(options.prefix, server, skill, { prefix: naming?.prefix }),
      );
  }
  catalog.collisions.push(...catalog.skills.collisions);
  return catalog;
}

/** A definition with its `_meta` replaced (the same object when nothing changed). */
function withMeta<T extends { _meta?: Record<string, unknown> | undefined }>(
  definition: T,
  meta: Record<string, unknown> | undefined,
): T {
  return meta === definition._meta ? definition : { ...definition, _meta: meta };
}

/** The upstream that serves a resource URI: a listed resource, else the first template that matches. */
export function resourceOwner(catalog: Catalog, uri: string): string | undefined {
  const listed = catalog.resourceServer.get(uri);
  if (listed !== undefined) return listed;
  for (const { server, matcher } of catalog.templates) if (matcher?.match(uri)) return server;
  return undefined;
}
