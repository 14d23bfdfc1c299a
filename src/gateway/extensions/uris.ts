/**
 * The URIs of the extensions' resources (a skill's files, an app's `ui://` page) as the gateway exposes
 * them. Two upstreams may serve the same one (`skill://pdf/SKILL.md`, `ui://widget/app.html`), so, as tool
 * names get `<server>__`, these URIs get the server's prefix (its name, or its entry's `prefix`) as their
 * first segment: `skill://pdf/SKILL.md` of server `alpha` is `skill://alpha/pdf/SKILL.md`. The last segment
 * stays, so a skill's folder keeps its name. With `--prefix none` URIs are kept as they are.
 */

/** The schemes whose URIs are namespaced: apps' pages, and skills' (which may live under another scheme). */
export const NAMESPACED_SCHEMES: ReadonlySet<string> = new Set(['ui', 'skill']);

const HIERARCHICAL = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/su;

/** Where exposed URIs lead: each URI prefix to its server, with the schemes namespaced for that server. */
export interface UriRoutes {
  /** False with `--prefix none`: nothing is rewritten. */
  readonly namespaced: boolean;
  /** URI prefix (first segment) → server. */
  readonly servers: Map<string, { server: string; schemes: ReadonlySet<string> }>;
  /** Server → its URI prefix. */
  readonly prefixes: Map<string, string>;
}

/** An empty set of routes. */
export function uriRoutes(namespaced: boolean): UriRoutes {
  return { namespaced, servers: new Map(), prefixes: new Map() };
}

/** Adds a server (the first server with a prefix keeps it). */
export function addRoute(routes: UriRoutes, server: string, prefix: string, schemes: Iterable<string>): void {
  if (routes.servers.has(prefix)) return;
  routes.servers.set(prefix, { server, schemes: new Set([...NAMESPACED_SCHEMES, ...schemes]) });
  routes.prefixes.set(server, prefix);
}

/** The scheme of a `scheme://…` URI (lower case), or undefined. */
export function schemeOf(uri: string): string | undefined {
  return HIERARCHICAL.exec(uri)?.[1]?.toLowerCase();
}

/** An upstream's URI as clients see it (unchanged unless its scheme is namespaced for that server). */
export function exposedUri(routes: UriRoutes, server: string, uri: string): string {
  const prefix = routes.prefixes.get(server);
  const match = HIERARCHICAL.exec(uri);
  if (!routes.namespaced || prefix === undefined || !match) return uri;
  const scheme = (match[1] as string).toLowerCase();
  if (!routes.servers.get(prefix)?.schemes.has(scheme)) return uri;
  return `${match[1]}://${prefix}/${match[2]}`;
}

/** The upstream and its own URI behind an exposed one; undefined when the URI is not namespaced. */
export function upstreamUri(routes: UriRoutes, uri: string): { server: string; uri: string } | undefined {
  const match = HIERARCHICAL.exec(uri);
  if (!routes.namespaced || !match) return undefined;
  const rest = match[2] as string;
  const cut = rest.indexOf('/');
  const route = routes.servers.get(cut === -1 ? rest : rest.slice(0, cut));
  if (!route?.schemes.has((match[1] as string).toLowerCase())) return undefined;
  return { server: route.server, uri: `${match[1]}://${cut === -1 ? '' : rest.slice(cut + 1)}` };
}

/** Rewrites the `uri` of each item (resource contents, directory entries) from upstream to exposed. */
export function exposedUris<T extends { uri: string }>(
  routes: UriRoutes,
  server: string,
  items: readonly T[],
): T[] {
  return items.map((item) => ({ ...item, uri: exposedUri(routes, server, item.uri) }));
}
