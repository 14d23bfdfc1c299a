import { writeFileAtomic } from '../internal/text-file.js';
import { type ClientContextOptions, clientContext } from './client-context.js';
import { mergeServers, readClientDocument, renderServers } from './formats/client-file.js';
import { clientFormat } from './formats/clients.js';
import { isRecord } from './formats/json-family.js';
import type { ClientId } from './formats/types.js';
import type { ServerNote } from './import.js';
import type { Scope } from './paths.js';
import { effectiveServers, loadConfig } from './store.js';

/** Options for {@link exportServers}. */
export interface ExportOptions extends ClientContextOptions {
  client: ClientId;
  /** Merge into the client's file (atomically) instead of only rendering a snippet. */
  write?: boolean;
  /** The client file to write; defaults to the client's usual user-level location. */
  to?: string;
  /** Export only this scope's servers; default: every server in effect. */
  scope?: Scope;
}

/** What an export produced. */
export interface ExportReport {
  /** The client file (written, or the one `--write` would write). */
  target: string;
  /** The snippet, or with `write` the whole new file. */
  text: string;
  written: boolean;
  exported: { name: string; replaced: boolean }[];
  skipped: ServerNote[];
  notes: ServerNote[];
  /** Warnings from loading mcpkit's own config. */
  warnings: string[];
}

/**
 * Renders mcpkit's servers in a client's own format, or merges them into that client's file keeping
 * everything else there: one config, every client.
 */
export async function exportServers(options: ExportOptions): Promise<ExportReport> {
  const ctx = clientContext(options);
  const format = clientFormat(options.client);
  const config = await loadConfig(options);
  const servers = options.scope
    ? config.servers.filter((s) => s.scope === options.scope)
    : effectiveServers(config);
  const natives: Record<string, Record<string, unknown>> = {};
  const skipped: ServerNote[] = [];
  const notes: ServerNote[] = [];
  for (const server of servers) {
    const converted = format.toNative(server.entry);
    if (converted.value) {
      natives[server.name] = converted.value;
      for (const message of converted.notes) notes.push({ name: server.name, message });
    } else skipped.push({ name: server.name, message: converted.notes.join('; ') });
  }
  const target = options.to ?? format.exportPath(ctx);
  const report = { target, written: false, skipped, notes, warnings: config.warnings };
  if (!options.write) {
    const exported = Object.keys(natives).map((name) => ({ name, replaced: false }));
    return { ...report, text: renderServers(format, natives), exported };
  }
  const doc = await readClientDocument(format, target);
  let present: unknown = doc.value;
  for (const key of format.serversPath) present = isRecord(present) ? present[key] : undefined;
  const exported = Object.keys(natives).map((name) => ({
    name,
    replaced: isRecord(present) && Object.hasOwn(present, name),
  }));
  const merged = mergeServers(format, doc, natives);
  for (const message of merged.notes) notes.push({ name: '', message });
  if (exported.length > 0) await writeFileAtomic(target, merged.text);
  return { ...report, text: merged.text, exported, written: exported.length > 0 };
}
