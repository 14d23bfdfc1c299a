import type { ListKind } from '../client/index.js';
import { errorMessage } from '../internal/error-message.js';
import { writeFileAtomic } from '../internal/text-file.js';
import { type Advertised, advertised } from './advertised.js';
import { buildCatalog, type Catalog, type PrefixMode } from './catalog.js';
import { skillsCapability } from './extensions/skill-handlers.js';
import type { PinMode, PinStore } from './pins.js';
import { toolIndexMarkdown } from './tool-search.js';
import type { Upstreams } from './upstreams.js';

/** What the live catalog is built from, and whom it tells. */
export interface LiveCatalogOptions {
  upstreams: Upstreams;
  prefix: PrefixMode;
  /** Where pins are kept; undefined with pinning off. */
  pins: PinStore | undefined;
  pinMode: PinMode;
  /** Servers whose tools are never pinned. */
  unpinned: readonly string[];
  /** Keep a Markdown index of every tool in this file. */
  toolIndexFile: string | undefined;
  /** Extensions passed through to clients when an upstream offers them (see `advertised`). */
  extensions: readonly string[];
  log(message: string): void;
  /** Logs a message once per key (a changed pin, a clash). */
  once(key: string, message: string): void;
  /** After the rebuild that followed a change: which lists changed, for the clients. */
  changed(lists: ReadonlySet<ListKind>): void;
}

/**
 * The gateway's catalog over time: built on first use, dropped on any upstream change and rebuilt shortly
 * after (clients are then told which lists changed), with what it advertises worked out once per catalog.
 */
export class LiveCatalog {
  /** Exposed tool names seen before, with their server: a call to one whose server is down says so. */
  readonly known = new Map<string, string>();
  /** False until the first catalog was checked: a clash there is the gateway's error, not a warning. */
  serving = false;
  private current: Promise<Catalog> | undefined;
  /** The catalog `current` resolved to, while it is current (the fast path reads it synchronously). */
  private built: Catalog | undefined;
  private advertisedNow: Advertised | undefined;
  private pendingLists = new Set<ListKind>();
  private refreshTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: LiveCatalogOptions) {}

  /** The current catalog (rebuilt after any upstream change). */
  get(): Promise<Catalog> {
    if (!this.current) {
      const building = this.build();
      this.current = building;
      building.then(
        (catalog) => {
          if (this.current === building) this.built = catalog;
        },
        () => undefined,
      );
    }
    return this.current;
  }

  /** The catalog when it is built now (undefined while it is rebuilt). */
  now(): Catalog | undefined {
    return this.built;
  }

  /**
   * What an instance advertises: it depends only on which upstreams are ready, so it is worked out once
   * per catalog (stateless HTTP builds an instance per request).
   */
  advertised(): Advertised {
    const { upstreams, prefix, extensions } = this.options;
    if (!this.advertisedNow) {
      const sources = upstreams.sources();
      const made = advertised(sources, prefix, extensions);
      const connections = sources.map((s) => s.connection);
      this.advertisedNow = { ...made, capabilities: skillsCapability(made.capabilities, connections) };
    }
    return this.advertisedNow;
  }

  /** Drops the catalog; shortly after, rebuilds it and tells clients which lists changed. */
  invalidate(lists: Iterable<ListKind>): void {
    this.current = undefined;
    this.built = undefined;
    this.advertisedNow = undefined;
    for (const list of lists) this.pendingLists.add(list);
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      const changed = this.pendingLists;
      this.pendingLists = new Set();
      this.get().then(
        () => this.options.changed(changed),
        (error: Error) => this.options.log(`cannot list the upstreams' tools: ${error.message}`),
      );
    }, 20);
    this.refreshTimer.unref();
  }

  /** Forgets the tools of a server that left the config. */
  forget(server: string): void {
    for (const [tool, owner] of this.known) if (owner === server) this.known.delete(tool);
  }

  /** Stops a pending rebuild. */
  close(): void {
    clearTimeout(this.refreshTimer);
  }

  private async build(): Promise<Catalog> {
    const { pins, pinMode: mode, once, log } = this.options;
    const catalog = await buildCatalog(this.options.upstreams.sources(), {
      prefix: this.options.prefix,
      // Once per server, list and reason: a listing that keeps failing is said once, not at every rebuild.
      onListFailed: (server, list, error) => {
        const why = errorMessage(error).split('\n')[0];
        once(
          `list:${server}:${list}:${why}`,
          `cannot list the ${list} of server "${server}": ${why}; left out until it lists them`,
        );
      },
      ...(pins
        ? {
            pins: {
              store: pins,
              mode,
              exempt: new Set(this.options.unpinned),
              onChanged: (server, tool) => {
                once(
                  `pin:${server}:${tool}`,
                  `tool "${tool}" of server "${server}" changed its description or schema since it was pinned` +
                    (mode === 'strict'
                      ? `; hidden until \`mcpkit trust ${server}\``
                      : `; run \`mcpkit trust ${server}\` to accept it`),
                );
              },
            },
          }
        : {}),
    });
    await pins?.save().catch((error: Error) => log(`cannot save pins: ${error.message}`));
    if (this.serving)
      for (const collision of catalog.collisions)
        once(`clash:${collision}`, `${collision}; the first one is served`);
    for (const tool of catalog.tools) this.known.set(tool.name, tool.server);
    if (this.options.toolIndexFile) {
      await writeFileAtomic(this.options.toolIndexFile, toolIndexMarkdown(catalog.tools)).catch(
        (error: Error) => log(error.message),
      );
    }
    return catalog;
  }
}
