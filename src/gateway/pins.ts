import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/client';
import { type ServerEntry, serverIdentity } from '../config/index.js';
import { McpkitError } from '../errors/index.js';
import { readTextIfExists, writeFileAtomic } from '../internal/text-file.js';

/** What the gateway does when a pinned tool's definition changes. */
export type PinMode = 'off' | 'warn' | 'strict';

/** The verdict on one tool. */
export type PinVerdict = 'new' | 'same' | 'changed';

interface PinFile {
  version: 1;
  servers: PinTable;
}

/**
 * The hash of what a model reads and what a call sends: description, title and schemas. Key order does not
 * matter; anything else (icons, `_meta`) may change freely.
 */
export function toolFingerprint(tool: Tool): string {
  const pinned = {
    name: tool.name,
    title: tool.title ?? null,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema ?? null,
  };
  return createHash('sha256').update(canonicalJson(pinned)).digest('hex');
}

/** JSON with object keys sorted at every level: equal values give equal text (for hashes). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** One pin: a tool's fingerprint and when it was taken. */
export interface PinRecord {
  hash: string;
  pinnedAt: string;
}

/**
 * Every server's pins: server identity (see {@link PinStore.identify}) → tool → pin. A key without `:` is a
 * server name, as files written before identities held them: read once, moved to the identity that claims it.
 */
export type PinTable = Record<string, Record<string, PinRecord>>;

/** A first sighting of a tool, to be pinned unless a pin is there by now. */
export interface PinSighting {
  server: string;
  tool: string;
  pin: PinRecord;
}

/**
 * Where pins live: a file (one machine) or a shared store (replicas, see `RedisPins`). `write` applies
 * `trust` replacements whole (an empty one removes the key) and first sightings only where no pin is, and
 * returns the table after.
 */
export interface PinBackend {
  read(): Promise<PinTable>;
  write(
    replaced: ReadonlyMap<string, Record<string, PinRecord>>,
    added: readonly PinSighting[],
  ): Promise<PinTable>;
}

/** Pins in a JSON file (the default: `<user config dir>/pins.json`), merged on write so processes never undo each other. */
export class FilePins implements PinBackend {
  constructor(readonly file: string) {}

  async read(): Promise<PinTable> {
    const text = await readTextIfExists(this.file);
    if (text === undefined) return {};
    try {
      const parsed = JSON.parse(text) as PinFile;
      if (parsed?.version !== 1 || typeof parsed.servers !== 'object' || parsed.servers === null)
        throw new Error('expected {"version": 1, "servers": {…}}');
      return parsed.servers;
    } catch (cause) {
      throw new McpkitError('CONFIG_PARSE', `${this.file}: not a pin file: ${(cause as Error).message}`, {
        file: this.file,
        cause,
      });
    }
  }

  async write(
    replaced: ReadonlyMap<string, Record<string, PinRecord>>,
    added: readonly PinSighting[],
  ): Promise<PinTable> {
    const current = await this.read();
    for (const [server, pins] of replaced) {
      if (Object.keys(pins).length > 0) current[server] = pins;
      else delete current[server];
    }
    for (const { server, tool, pin } of added) {
      const pins = (Object.hasOwn(current, server) ? current[server] : undefined) ?? {};
      if (!Object.hasOwn(pins, tool))
        Object.defineProperty(pins, tool, {
          value: pin,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      current[server] = pins;
    }
    const file: PinFile = { version: 1, servers: current };
    await writeFileAtomic(this.file, `${JSON.stringify(file, null, 2)}\n`);
    return current;
  }
}

/**
 * Tool pins (rug-pull protection): the first definition seen of each tool is remembered (a file in the user
 * config dir, or a store replicas share); later definitions are compared with it. `trust` replaces a
 * server's pins.
 */
export class PinStore {
  private data: PinTable = {};
  private writing: Promise<void> = Promise.resolve();
  /** Changes not yet written: first sightings, and servers whose pins `trust` replaced. */
  private readonly added: PinSighting[] = [];
  private readonly replaced = new Map<string, Record<string, PinRecord>>();
  private readonly backend: PinBackend;
  /** Server name → identity, for the servers {@link identify} was told about. */
  private readonly identities = new Map<string, string>();

  /** A pin file's path, or another {@link PinBackend}. */
  constructor(where: string | PinBackend) {
    this.backend = typeof where === 'string' ? new FilePins(where) : where;
  }

  /** Reads the pins (a missing file is an empty store; an unreadable one an error naming it). */
  async load(): Promise<this> {
    this.data = await this.backend.read();
    return this;
  }

  /**
   * Keys these servers' pins by what identifies each (its command and arguments, or its URL; see
   * `serverIdentity`) instead of its name, so two projects' `memory` servers that run different things do
   * not warn about each other. An in-process server (a `transport` of its own) has nothing but its name.
   * Pins an older file kept under the name move to the first identity that claims it (saved with the next
   * {@link save}). Servers not identified are keyed by name.
   */
  identify(servers: readonly { name: string; entry: ServerEntry; transport?: unknown }[]): void {
    for (const { name, entry, transport } of servers) {
      const key = transport === undefined ? serverIdentity(entry) : name;
      this.identities.set(name, key);
      const legacy = Object.hasOwn(this.data, name) ? this.data[name] : undefined;
      if (key === name || Object.hasOwn(this.data, key) || legacy === undefined) continue;
      this.data[key] = legacy;
      delete this.data[name];
      this.replaced.set(key, legacy);
      this.replaced.set(name, {});
    }
  }

  private keyOf(server: string): string {
    return this.identities.get(server) ?? server;
  }

  /** Compares a tool with its pin; a tool never seen is pinned now (saved with the next {@link save}). */
  check(name: string, tool: Tool): PinVerdict {
    const server = this.keyOf(name);
    const hash = toolFingerprint(tool);
    const pins = (Object.hasOwn(this.data, server) ? this.data[server] : undefined) ?? {};
    this.data[server] = pins;
    const pin = Object.hasOwn(pins, tool.name) ? pins[tool.name] : undefined;
    if (!pin) {
      const record = { hash, pinnedAt: new Date().toISOString() };
      Object.defineProperty(pins, tool.name, {
        value: record,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.added.push({ server, tool: tool.name, pin: record });
      return 'new';
    }
    return pin.hash === hash ? 'same' : 'changed';
  }

  /** Compares a tool with its pin without pinning it: `new` when it has none. */
  peek(name: string, tool: Tool): PinVerdict {
    const server = this.keyOf(name);
    const pins = Object.hasOwn(this.data, server) ? this.data[server] : undefined;
    const pin = pins && Object.hasOwn(pins, tool.name) ? pins[tool.name] : undefined;
    if (!pin) return 'new';
    return pin.hash === toolFingerprint(tool) ? 'same' : 'changed';
  }

  /** Replaces a server's pins with these definitions; returns how many differed from the old pins. */
  trust(name: string, tools: readonly Tool[]): { pinned: number; changed: number } {
    const server = this.keyOf(name);
    const old: Record<string, PinRecord> = Object.assign(
      Object.create(null),
      Object.hasOwn(this.data, server) ? this.data[server] : {},
    );
    const now = new Date().toISOString();
    let changed = 0;
    const pins: Record<string, PinRecord> = Object.create(null);
    for (const tool of tools) {
      const hash = toolFingerprint(tool);
      if (old[tool.name] !== undefined && old[tool.name]?.hash !== hash) changed++;
      pins[tool.name] =
        old[tool.name]?.hash === hash ? (old[tool.name] as PinRecord) : { hash, pinnedAt: now };
    }
    this.data[server] = pins;
    this.replaced.set(server, pins);
    return { pinned: tools.length, changed };
  }

  /**
   * Writes what changed, merged into the store as it is now, so a gateway and a `mcpkit trust` running
   * side by side never undo each other; saves never interleave.
   */
  save(): Promise<void> {
    if (this.added.length === 0 && this.replaced.size === 0) return this.writing;
    const added = this.added.splice(0);
    const replaced = new Map(this.replaced);
    this.replaced.clear();
    this.writing = this.writing.then(async () => {
      this.data = await this.backend.write(replaced, added);
    });
    return this.writing;
  }
}
