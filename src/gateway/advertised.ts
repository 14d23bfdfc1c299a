import type { ServerCapabilities } from '@modelcontextprotocol/server';
import { count } from '../internal/plural.js';
import type { CatalogSource, PrefixMode } from './catalog.js';
import { CALL_TOOL, TOOL_SEARCH } from './tool-search.js';

/** The stateless revision, whose subscriptions are `subscriptions/listen` streams. */
const MODERN = '2026-07-28';

/** What the gateway advertises to a client: capabilities and instructions, from its ready upstreams. */
export interface Advertised {
  capabilities: ServerCapabilities;
  instructions: string | undefined;
}

/**
 * The gateway's capabilities (its own list_changed and logging, plus what any upstream offers, and those of
 * `extensions` — the ones the gateway passes through — that an upstream offers) and its instructions
 * (which servers it serves, how names are made, and each upstream's own instructions).
 */
export function advertised(
  sources: readonly CatalogSource[],
  prefix: PrefixMode,
  extensions: readonly string[] = [],
): Advertised {
  return { capabilities: capabilities(sources, extensions), instructions: instructions(sources, prefix) };
}

function capabilities(sources: readonly CatalogSource[], extensions: readonly string[]): ServerCapabilities {
  const offered = sources.map((s) => s.connection.capabilities ?? {});
  const passed = extensions.filter((name) => offered.some((c) => c.extensions?.[name]));
  return {
    tools: { listChanged: true },
    resources: {
      listChanged: true,
      ...(sources.some(subscribable) ? { subscribe: true } : {}),
    },
    logging: {},
    ...(offered.some((c) => c.prompts) ? { prompts: { listChanged: true } } : {}),
    // Prompt arguments and resource templates are what completion completes: the gateway answers for any
    // upstream with prompts or resources (one that does not declare completions is still asked; see
    // `completeOn` in proxy-handlers.ts).
    ...(offered.some((c) => c.completions || c.prompts || c.resources) ? { completions: {} } : {}),
    // Upstream tasks pass through (tasks/task-routes.ts) to clients that declare the extension.
    ...(passed.length > 0 ? { extensions: Object.fromEntries(passed.map((name) => [name, {}])) } : {}),
  };
}

/**
 * Whether a 2025 client's `resources/subscribe` can reach this upstream: it declares subscriptions, or it
 * serves resources on a 2026-07-28 connection, where a subscription is a `subscriptions/listen` stream
 * (the gateway opens one per subscribed resource; `ServerHandle.subscribeResource`).
 */
function subscribable(source: CatalogSource): boolean {
  const resources = source.connection.capabilities?.resources;
  if (resources?.subscribe === true) return true;
  return resources !== undefined && source.connection.protocolVersion === MODERN;
}

function instructions(sources: readonly CatalogSource[], prefix: PrefixMode): string | undefined {
  const own = sources.filter((s) => s.connection.instructions).map((s) => s.connection);
  // One upstream proxied transparently keeps its own words.
  if (prefix === 'none' && sources.length === 1) return own[0]?.instructions;
  const lines = [
    `This MCP gateway serves the tools of ${count(sources.length, 'server')} (${sources.map((s) => s.connection.id).join(', ') || 'none yet'}).` +
      (prefix === 'server' ? ' Tool and prompt names start with the server name and "__".' : ''),
    `When only ${TOOL_SEARCH} and ${CALL_TOOL} are listed, find tools with ${TOOL_SEARCH} and call them with ${CALL_TOOL}.`,
  ];
  for (const connection of own) lines.push('', `## ${connection.id}`, connection.instructions as string);
  return lines.join('\n');
}
