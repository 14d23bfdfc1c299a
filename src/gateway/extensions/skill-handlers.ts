import {
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Server,
  type ServerCapabilities,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { canonicalUri, SKILLS_EXTENSION_ID } from '../../client/index.js';
import { pageOf } from '../../serve/index.js';
import type { Catalog } from '../catalog.js';
import type { Downstream } from '../downstream.js';
import { relay } from '../relayed.js';
import type { Upstreams } from '../upstreams.js';
import { type CacheHint, exposedSkill } from './skills.js';
import { exposedUri, exposedUris, upstreamUri } from './uris.js';

/** What the extensions' handlers need from their gateway (a part of the proxy handlers' host). */
export interface ExtensionHost {
  catalog(): Promise<Catalog>;
  upstreams: Upstreams;
}

const LIST_PARAMS = z.looseObject({ cursor: z.string().optional() });
const URI_PARAMS = z.looseObject({ uri: z.string() });
const DIRECTORY_PARAMS = z.looseObject({ uri: z.string(), cursor: z.string().optional() });

/**
 * The gateway's Skills capability: declared when any ready upstream serves the extension, with
 * `directoryRead` when any of them serves `resources/directory/read`.
 */
export function skillsCapability(
  capabilities: ServerCapabilities,
  upstreams: readonly { capabilities: ServerCapabilities | undefined }[],
): ServerCapabilities {
  const offered = upstreams
    .map((u) => u.capabilities?.extensions?.[SKILLS_EXTENSION_ID] as { directoryRead?: unknown } | undefined)
    .filter((c) => typeof c === 'object' && c !== null);
  if (offered.length === 0) return capabilities;
  const directoryRead = offered.some((c) => c?.directoryRead === true);
  return {
    ...capabilities,
    extensions: {
      ...capabilities.extensions,
      [SKILLS_EXTENSION_ID]: directoryRead ? { directoryRead: true } : {},
    },
  };
}

/**
 * Installs `skills/list` (every upstream's skills under exposed URIs, paged), `skills/get` and
 * `resources/directory/read` (routed to the skill's upstream) on a served instance that declares Skills.
 * A 2026-07-28 client gets the caching hints; a 2025 one none (the backport has no such fields).
 */
export function installSkillHandlers(
  server: Server,
  downstream: Downstream,
  capabilities: ServerCapabilities,
  host: ExtensionHost,
): void {
  const declared = capabilities.extensions?.[SKILLS_EXTENSION_ID] as { directoryRead?: boolean } | undefined;
  if (!declared) return;
  const hinted = (hint: Partial<CacheHint> | undefined) =>
    downstream.era === 'modern'
      ? { ttlMs: hint?.ttlMs ?? 0, cacheScope: hint?.cacheScope ?? ('private' as const) }
      : {};
  server.setRequestHandler('skills/list', { params: LIST_PARAMS }, async (params) => {
    const { skills } = await host.catalog();
    const listed = skills.skills.map((s) => s.skill);
    return { ...pageOf(listed, params.cursor, 'skills'), ...hinted(skills.hint) };
  });
  server.setRequestHandler('skills/get', { params: URI_PARAMS }, async (params, ctx) => {
    const catalog = await host.catalog();
    const exposed = catalog.skills.byUri.get(canonicalUri(params.uri));
    if (!exposed)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No skill is served at ${params.uri}`);
    const skills = host.upstreams.ready(exposed.server).skills;
    const answer = await relay(() => skills.get(exposed.upstream.uri, { signal: ctx.mcpReq.signal }));
    const skill = exposedSkill(answer.skill, (uri) => exposedUri(catalog.uris, exposed.server, uri));
    return { skill, ...hinted(answer) };
  });
  if (declared.directoryRead !== true) return;
  server.setRequestHandler('resources/directory/read', { params: DIRECTORY_PARAMS }, async (params, ctx) => {
    const catalog = await host.catalog();
    const routed = upstreamUri(catalog.uris, params.uri);
    const owner = routed?.server ?? onlyServer(catalog.skills.directoryRead);
    if (owner === undefined || !catalog.skills.directoryRead.has(owner))
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${params.uri} is not a directory resource`);
    const skills = host.upstreams.ready(owner).skills;
    const directory = await relay(() =>
      skills.readDirectory(routed?.uri ?? params.uri, { signal: ctx.mcpReq.signal }),
    );
    const resources = exposedUris(catalog.uris, owner, directory.resources);
    return { ...pageOf(resources, params.cursor, 'resources'), ...hinted(directory) };
  });
}

/**
 * `resources/read` of a namespaced URI (a skill's file, an app's page): read from its upstream under its own
 * URI, the contents' URIs exposed again. Undefined for any other URI (the proxy handlers route it).
 */
export async function readNamespaced(
  host: ExtensionHost,
  uri: string,
  signal: AbortSignal,
): Promise<ReadResourceResult | undefined> {
  const catalog = await host.catalog();
  const routed = upstreamUri(catalog.uris, uri);
  if (!routed) return undefined;
  const connection = host.upstreams.ready(routed.server);
  const result = await relay(() => connection.readResource(routed.uri, { signal }));
  return { ...result, contents: exposedUris(catalog.uris, routed.server, result.contents) };
}

function onlyServer(servers: ReadonlySet<string>): string | undefined {
  return servers.size === 1 ? [...servers][0] : undefined;
}
