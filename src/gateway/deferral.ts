import { type CallToolResult, CLIENT_INFO_META_KEY, type Tool } from '@modelcontextprotocol/server';
import { failedResult } from '../serve/index.js';
import type { Catalog } from './catalog.js';
import {
  CALL_TOOL_DEFINITION,
  TOOL_SEARCH,
  TOOL_SEARCH_DEFINITION,
  ToolSearch,
  toolSearchResult,
} from './tool-search.js';

/** Tools tool_search revealed stay listed (most recent first) up to this many per client, to respect client caps. */
const REVEALED_MAX = 50;
/** Clients without a session (2026-07-28) remembered at once; the longest unseen is forgotten first. */
const IDENTITIES_MAX = 200;

/**
 * Who a 2026-07-28 request comes from, for what `tool_search` revealed to it: there is no session, so the
 * client's name and version (its `clientInfo`, sent in each request's `_meta` envelope under
 * `io.modelcontextprotocol/clientInfo`) stand for it; a request without them counts as one anonymous client.
 */
export function identityOf(clientInfo: unknown): string {
  const info = clientInfo as { name?: unknown; version?: unknown } | undefined;
  if (typeof info?.name !== 'string') return 'client:anonymous';
  return `client:${info.name}@${typeof info.version === 'string' ? info.version : ''}`;
}

/** The `clientInfo` of a raw request's `_meta` envelope (for frames the SDK never sees). */
export function envelopeClientInfo(meta: unknown): unknown {
  return (meta as Record<string, unknown> | undefined)?.[CLIENT_INFO_META_KEY];
}

/**
 * Deferred tools: past `threshold` tools, tools/list shows only `tool_search` and `call_tool` (plus tools of
 * `alwaysLoad` servers and those `tool_search` found for this client). What a search reveals is kept per
 * client — per session, or per client identity where there is none — so one client's searches never
 * change another's list.
 */
export class Deferral {
  private readonly revealed = new Map<string, Set<string>>();
  private search: { catalog: Catalog; index: ToolSearch } | undefined;

  constructor(
    private readonly threshold: number,
    /** Called when a client's list grew (send it tools/list_changed). */
    private readonly grew: (identity: string) => void,
    /** Tells the other replicas what a search revealed to a client (see `shareRevealed`). */
    private readonly share?: (identity: string, names: string[]) => void,
  ) {}

  /** What a search on another replica revealed to a client that may come here next. */
  revealedElsewhere(identity: string, names: string[]): void {
    this.reveal(identity, names);
  }

  /** Whether this catalog is served deferred. */
  deferred(catalog: Catalog): boolean {
    return catalog.tools.length > this.threshold;
  }

  /** What tools/list shows this client: everything, or the deferred view. */
  listed(catalog: Catalog, identity: string): Tool[] {
    if (!this.deferred(catalog)) return catalog.tools.map((t) => t.definition);
    const revealed = this.revealed.get(identity);
    const shown = catalog.tools.filter((t) => t.alwaysLoad || revealed?.has(t.name));
    return [TOOL_SEARCH_DEFINITION, CALL_TOOL_DEFINITION, ...shown.map((t) => t.definition)];
  }

  /** Answers `tool_search`; in deferred mode the matches join this client's tools/list. */
  toolSearch(catalog: Catalog, args: Record<string, unknown>, identity: string): CallToolResult {
    if (typeof args.query !== 'string' || args.query.trim() === '')
      return failedResult(`${TOOL_SEARCH}: "query" must be a non-empty string`);
    const limit =
      typeof args.limit === 'number' && args.limit >= 1 ? Math.min(Math.floor(args.limit), 50) : 5;
    if (this.search?.catalog !== catalog) this.search = { catalog, index: new ToolSearch(catalog.tools) };
    const matches = this.search.index.search(args.query, limit);
    if (this.deferred(catalog)) {
      const names = matches.map((m) => m.name);
      this.reveal(identity, names);
      if (names.length > 0) this.share?.(identity, names);
    }
    return toolSearchResult(args.query, matches, catalog.tools.length);
  }

  /** Forgets a client (its session closed). */
  forget(identity: string): void {
    this.revealed.delete(identity);
  }

  private reveal(identity: string, names: string[]): void {
    let set = this.revealed.get(identity);
    if (set) this.revealed.delete(identity); // re-inserted: most recently seen last
    set ??= new Set();
    this.revealed.set(identity, set);
    while (this.revealed.size > IDENTITIES_MAX)
      this.revealed.delete(this.revealed.keys().next().value as string);
    let grew = false;
    for (const name of names) {
      if (!set.delete(name)) grew = true;
      set.add(name);
    }
    while (set.size > REVEALED_MAX) set.delete(set.values().next().value as string);
    if (grew) this.grew(identity);
  }
}
