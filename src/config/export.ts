import { writeFileAtomic } from '../internal/text-file.js';
import { type ClientContextOptions, clientContext } from './client-context.js';
import { planEntry } from './export-merge.js';
import { mergeServers, readClientDocument, renderServers } from './formats/client-file.js';
import { clientFormat } from './formats/clients.js';
import type { ClientId } from './formats/types.js';
import type { ServerNote } from './import.js';
import type { Scope } from './paths.js';
import { type ConfiguredServer, effectiveServers, loadConfig } from './store.js';

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
  /** With `write`: `unchanged` when the client's file already held the entry as it reads (left as it was). */
  exported: { name: string; replaced: boolean; unchanged?: boolean }[];
  skipped: ServerNote[];
  notes: ServerNote[];
  /** Warnings from loading mcpkit's own config. */
  warnings: string[];
}

/**
 * Renders mcpkit's servers in a client's own format, or merges them into that client's file keeping
 * everything else there: one config, every client. A round trip keeps what the user wrote: entries that
 * read the same are not touched, replaced ones keep the keys mcpkit does not model (see {@link planEntry}),
 * and the file is written (atomically) only when something changed.
 */
export async function exportServers(options: ExportOptions): Promise<ExportReport> {
  const ctx = clientContext(options);
  const format = clientFormat(options.client);
  const config = await loadConfig(options);
  const servers = options.scope
    ? config.servers.filter((s) => s.scope === options.scope)
    : effectiveServers(config);
  const natives: { server: ConfiguredServer; native: Record<string, unknown> }[] = [];
  const skipped: ServerNote[] = [];
  const notes: ServerNote[] = [];
  for (const server of servers) {
    if (format.readsProjectFile && server.scope === 'project') {
      skipped.push({
        name: server.name,
        message: `in project scope: ${format.label} reads ${server.file} as its own project file already`,
      });
      continue;
    }
    const converted = format.toNative(server.entry);
    if (converted.value) {
      natives.push({ server, native: converted.value });
      for (const message of converted.notes) notes.push({ name: server.name, message });
    } else skipped.push({ name: server.name, message: converted.notes.join('; ') });
  }
  const target = options.to ?? format.exportPath(ctx);
  const report = { target, written: false, skipped, notes, warnings: config.warnings };
  if (!options.write) {
    const snippet = Object.fromEntries(natives.map(({ server, native }) => [server.name, native]));
    const exported = natives.map(({ server }) => ({ name: server.name, replaced: false }));
    return { ...report, text: renderServers(format, snippet), exported };
  }
  const doc = await readClientDocument(format, target);
  const plans = natives.map(({ server, native }) =>
    planEntry(format, doc.value, ctx, server.name, server.entry, native),
  );
  const exported = plans.map((plan) =>
    plan.status === 'unchanged'
      ? { name: plan.name, replaced: false, unchanged: true }
      : { name: plan.name, replaced: plan.status === 'replaced' },
  );
  const merged = mergeServers(format, doc, plans);
  for (const message of merged.notes) notes.push({ name: '', message });
  const written = merged.text !== doc.text;
  if (written) await writeFileAtomic(target, merged.text);
  return { ...report, text: merged.text, exported, written };
}
