import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { McpkitError } from '../errors/index.js';
import { readJsonDocument } from '../internal/json-document.js';
import { type ClientContextOptions, clientContext } from './client-context.js';
import { readClientDocument } from './formats/client-file.js';
import { clientFormat } from './formats/clients.js';
import type { ClientId } from './formats/types.js';
import { GATEWAY_LOOP, runsMcpkitGateway } from './gateway-entry.js';
import { configFile, type Scope } from './paths.js';
import { formatIssues, parseServerEntry, sanitizeName } from './schema.js';
import { type MovedSecret, moveSecretsToVariables, type VariableNames } from './secret-references.js';
import { addServers, SERVERS_KEY } from './store.js';

/** Options for {@link importServers}. */
export interface ImportOptions extends ClientContextOptions {
  client: ClientId;
  /** Read this file instead of the client's usual locations. */
  from?: string;
  scope: Scope;
  /** Replace servers that already exist in the scope. */
  force?: boolean;
  /** Report what would happen; write nothing. */
  dryRun?: boolean;
}

/** A note about one server (or, with name "", about the file). */
export interface ServerNote {
  name: string;
  message: string;
}

/** What an import did (or would do, with dryRun). */
export interface ImportReport {
  source: string;
  target: string;
  imported: { name: string; originalName?: string; replaced: boolean }[];
  skipped: ServerNote[];
  notes: ServerNote[];
  /**
   * Secrets written out in the client's file that were written into the project file as `${VAR}`
   * references instead (project scope only: that file is committed); the user sets these variables.
   */
  secrets: (MovedSecret & { name: string })[];
}

/**
 * Imports a client's servers into a scope. Entries the schema rejects are skipped with the reason;
 * names that exist are skipped unless `force`; what a format cannot express is reported in `notes`.
 * All accepted servers are written in one atomic write.
 */
export async function importServers(options: ImportOptions): Promise<ImportReport> {
  const ctx = clientContext(options);
  const format = clientFormat(options.client);
  const source = await findSource(options.from, format.importPaths(ctx), format.label, ctx.cwd);
  const doc = await readClientDocument(format, source);
  const read = format.readServers(doc.value, ctx);
  const targetDoc = await readJsonDocument(configFile(options.scope, options));
  const existingServers = targetDoc.value[SERVERS_KEY];
  const existing = new Set(
    typeof existingServers === 'object' && existingServers !== null ? Object.keys(existingServers) : [],
  );

  const report: ImportReport = {
    source,
    target: targetDoc.file,
    imported: [],
    skipped: [],
    notes: read.notes.map((message) => ({ name: '', message })),
    secrets: [],
  };
  const variables: VariableNames = new Map();
  const batch: { name: string; entry: unknown }[] = [];
  for (const native of read.servers) {
    const name = sanitizeName(native.name);
    const converted = format.fromNative(native.value);
    for (const message of converted.notes) report.notes.push({ name, message });
    if (!converted.value) {
      report.skipped.push({ name, message: converted.notes.join('; ') });
      continue;
    }
    const parsed = parseServerEntry(converted.value);
    if (!parsed.ok) {
      report.skipped.push({ name, message: `invalid entry: ${formatIssues(parsed.issues, native.path)}` });
      continue;
    }
    if (runsMcpkitGateway(parsed.entry)) {
      report.skipped.push({ name, message: GATEWAY_LOOP });
      continue;
    }
    if (batch.some((b) => b.name === name)) {
      report.skipped.push({ name, message: `another server in ${source} imports under the same name` });
      continue;
    }
    const replaced = existing.has(name);
    if (replaced && !options.force) {
      report.skipped.push({ name, message: `exists in ${options.scope} scope (use --force to replace it)` });
      continue;
    }
    let entry = parsed.entry;
    if (options.scope === 'project') {
      const moved = moveSecretsToVariables(name, entry, variables);
      entry = moved.entry;
      for (const secret of moved.moved) report.secrets.push({ name, ...secret });
    }
    batch.push({ name, entry });
    report.imported.push(
      name === native.name ? { name, replaced } : { name, originalName: native.name, replaced },
    );
  }
  if (!options.dryRun && batch.length > 0) await addServers(batch, { ...options, force: true });
  return report;
}

async function findSource(from: string | undefined, candidates: string[], label: string, cwd: string) {
  if (from !== undefined) {
    const file = resolve(cwd, from);
    if (!(await exists(file))) throw new McpkitError('IO', `cannot read ${file}: no such file`, { file });
    return file;
  }
  for (const candidate of candidates) if (await exists(candidate)) return candidate;
  throw new McpkitError(
    'IO',
    `no ${label} config found (looked in ${candidates.join(', ')}); pass --from PATH to name the file`,
  );
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
