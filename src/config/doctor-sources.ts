import { access } from 'node:fs/promises';
import { isMcpkitError } from '../errors/index.js';
import type { ClientContextOptions } from './client-context.js';
import { readClientDocument } from './formats/client-file.js';
import { clientFormat } from './formats/clients.js';
import type { ClientContext, ClientId } from './formats/types.js';
import { formatIssues, parseServerEntry, type ServerEntry } from './schema.js';
import { loadConfig } from './store.js';

/** Where doctor found servers: a client, or mcpkit's own config (which the gateway serves). */
export type DoctorSource = ClientId | 'mcpkit';

/** Clients started from the dock or a launcher, which get the GUI PATH instead of the shell's. */
export const GUI_CLIENTS: ReadonlySet<DoctorSource> = new Set([
  'claude-desktop',
  'cursor',
  'vscode',
  'windsurf',
  'cline',
]);

/** One server as a client's file holds it, converted to an mcpkit entry. */
export interface DoctorServer {
  source: DoctorSource;
  label: string;
  file: string;
  name: string;
  entry: ServerEntry;
}

/** A config file doctor read (or could not). */
export interface DoctorFile {
  source: DoctorSource;
  label: string;
  file: string;
  servers: number;
}

/** A file or entry doctor could not read: the message names the file and JSON path. */
export interface SourceProblem {
  source: DoctorSource;
  label: string;
  file: string;
  server?: string;
  message: string;
}

/** Every server in the config files of `sources` that exist (user and project files alike). */
export async function readSources(
  sources: readonly DoctorSource[],
  ctx: ClientContext,
  options: ClientContextOptions,
): Promise<{ files: DoctorFile[]; servers: DoctorServer[]; problems: SourceProblem[] }> {
  const files: DoctorFile[] = [];
  const servers: DoctorServer[] = [];
  const problems: SourceProblem[] = [];
  for (const source of sources) {
    if (source === 'mcpkit') {
      await readMcpkit(options, files, servers, problems);
      continue;
    }
    const format = clientFormat(source);
    const label = format.label;
    for (const file of [...new Set(format.importPaths(ctx))]) {
      if (!(await exists(file))) continue;
      let value: Record<string, unknown>;
      try {
        value = (await readClientDocument(format, file)).value;
      } catch (error) {
        if (!isMcpkitError(error)) throw error;
        problems.push({ source, label, file, message: error.message });
        files.push({ source, label, file, servers: 0 });
        continue;
      }
      const read = format.readServers(value, ctx);
      files.push({ source, label, file, servers: read.servers.length });
      for (const native of read.servers) {
        const converted = format.fromNative(native.value);
        const parsed = converted.value ? parseServerEntry(converted.value) : undefined;
        if (parsed?.ok) servers.push({ source, label, file, name: native.name, entry: parsed.entry });
        else {
          const why = parsed ? formatIssues(parsed.issues, native.path) : converted.notes.join('; ');
          problems.push({ source, label, file, server: native.name, message: `invalid entry: ${why}` });
        }
      }
    }
  }
  return { files, servers, problems };
}

async function readMcpkit(
  options: ClientContextOptions,
  files: DoctorFile[],
  servers: DoctorServer[],
  problems: SourceProblem[],
): Promise<void> {
  const label = 'mcpkit';
  try {
    const config = await loadConfig(options);
    for (const file of [config.files.project, config.files.user]) {
      if (!(await exists(file))) continue;
      const found = config.servers.filter((s) => s.file === file);
      files.push({ source: 'mcpkit', label, file, servers: found.length });
      for (const s of found) servers.push({ source: 'mcpkit', label, file, name: s.name, entry: s.entry });
    }
    for (const warning of config.warnings) {
      problems.push({ source: 'mcpkit', label, file: warning.split(': ')[0] ?? '', message: warning });
    }
  } catch (error) {
    if (!isMcpkitError(error)) throw error;
    const file = typeof error.context?.file === 'string' ? error.context.file : '';
    problems.push({ source: 'mcpkit', label, file, message: error.message });
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
