import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/client';
import { McpkitError } from '../errors/index.js';
import { readTextIfExists, writeFileAtomic } from '../internal/text-file.js';

/** What the gateway does when a pinned tool's definition changes. */
export type PinMode = 'off' | 'warn' | 'strict';

/** The verdict on one tool. */
export type PinVerdict = 'new' | 'same' | 'changed';

interface PinRecord {
  hash: string;
  pinnedAt: string;
}

interface PinFile {
  version: 1;
  servers: Record<string, Record<string, PinRecord>>;
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

/**
 * Tool pins (rug-pull protection): the first definition seen of each tool is remembered in a file in the
 * user config dir; later definitions are compared with it. `trust` replaces a server's pins.
 */
export class PinStore {
  private data: PinFile = { version: 1, servers: {} };
  private writing: Promise<void> = Promise.resolve();
  /** Changes not yet written: first sightings, and servers whose pins `trust` replaced. */
  private readonly added: { server: string; tool: string; pin: PinRecord }[] = [];
  private readonly replaced = new Map<string, Record<string, PinRecord>>();

  constructor(readonly file: string) {}

  /** Reads the pin file (a missing file is an empty store; an unreadable one an error naming it). */
  async load(): Promise<this> {
    this.data = await this.read();
    return this;
  }

  private async read(): Promise<PinFile> {
    const text = await readTextIfExists(this.file);
    if (text === undefined) return { version: 1, servers: {} };
    try {
      const parsed = JSON.parse(text) as PinFile;
      if (parsed?.version !== 1 || typeof parsed.servers !== 'object' || parsed.servers === null)
        throw new Error('expected {"version": 1, "servers": {…}}');
      return parsed;
    } catch (cause) {
      throw new McpkitError('CONFIG_PARSE', `${this.file}: not a pin file: ${(cause as Error).message}`, {
        file: this.file,
        cause,
      });
    }
  }

  /** Compares a tool with its pin; a tool never seen is pinned now (saved with the next {@link save}). */
  check(server: string, tool: Tool): PinVerdict {
    const hash = toolFingerprint(tool);
    const pins = this.data.servers[server] ?? {};
    this.data.servers[server] = pins;
    const pin = pins[tool.name];
    if (!pin) {
      const record = { hash, pinnedAt: new Date().toISOString() };
      pins[tool.name] = record;
      this.added.push({ server, tool: tool.name, pin: record });
      return 'new';
    }
    return pin.hash === hash ? 'same' : 'changed';
  }

  /** Compares a tool with its pin without pinning it: `new` when it has none. */
  peek(server: string, tool: Tool): PinVerdict {
    const pin = this.data.servers[server]?.[tool.name];
    if (!pin) return 'new';
    return pin.hash === toolFingerprint(tool) ? 'same' : 'changed';
  }

  /** Replaces a server's pins with these definitions; returns how many differed from the old pins. */
  trust(server: string, tools: readonly Tool[]): { pinned: number; changed: number } {
    const old = this.data.servers[server] ?? {};
    const now = new Date().toISOString();
    let changed = 0;
    const pins: Record<string, PinRecord> = {};
    for (const tool of tools) {
      const hash = toolFingerprint(tool);
      if (old[tool.name] !== undefined && old[tool.name]?.hash !== hash) changed++;
      pins[tool.name] =
        old[tool.name]?.hash === hash ? (old[tool.name] as PinRecord) : { hash, pinnedAt: now };
    }
    this.data.servers[server] = pins;
    this.replaced.set(server, pins);
    return { pinned: tools.length, changed };
  }

  /**
   * Writes what changed (atomically), merged into the file as it is now, so a gateway and a
   * `mcpkit trust` running side by side never undo each other; saves never interleave.
   */
  save(): Promise<void> {
    if (this.added.length === 0 && this.replaced.size === 0) return this.writing;
    const added = this.added.splice(0);
    const replaced = new Map(this.replaced);
    this.replaced.clear();
    this.writing = this.writing.then(async () => {
      const current = await this.read();
      for (const [server, pins] of replaced) current.servers[server] = pins;
      for (const { server, tool, pin } of added) {
        const pins = current.servers[server] ?? {};
        pins[tool] ??= pin;
        current.servers[server] = pins;
      }
      await writeFileAtomic(this.file, `${JSON.stringify(current, null, 2)}\n`);
      this.data = current;
    });
    return this.writing;
  }
}
