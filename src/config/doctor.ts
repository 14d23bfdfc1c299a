import { type ClientContextOptions, clientContext } from './client-context.js';
import { guiPath } from './command-path.js';
import { type CheckContext, checkServer, type DoctorFinding } from './doctor-checks.js';
import { type DoctorFile, type DoctorServer, type DoctorSource, readSources } from './doctor-sources.js';
import { CLIENT_IDS } from './formats/types.js';
import { maskUrl } from './mask.js';
import { isStdioServer, type ServerEntry } from './schema.js';
import { maskArgs } from './secrets.js';

/** Options for {@link diagnose}. */
export interface DoctorOptions extends ClientContextOptions {
  /** Only these sources (clients, or "mcpkit" for mcpkit's own config); default all. */
  sources?: readonly DoctorSource[];
}

/** What doctor found: the files read, the servers in them, and everything to change. */
export interface DoctorReport {
  platform: NodeJS.Platform;
  /** The PATH assumed for GUI clients on this platform. */
  guiPath: string;
  files: DoctorFile[];
  servers: DoctorServer[];
  findings: DoctorFinding[];
}

/** Every source doctor knows: each client format, then mcpkit's own config. */
export const DOCTOR_SOURCES: readonly DoctorSource[] = [...CLIENT_IDS, 'mcpkit'];

/**
 * Reads every client config the import formats know (user and project files that exist) and mcpkit's
 * own, and reports per server what will go wrong on this machine: commands a GUI client cannot find,
 * `npx` without `-y`, secrets in args or written out in env and headers, relative paths, unset
 * variables, the gateway inside its own config, and one name meaning different servers in two places.
 */
export async function diagnose(options: DoctorOptions = {}): Promise<DoctorReport> {
  const ctx = clientContext(options);
  const shellPath = ctx.env.PATH ?? ctx.env.Path ?? '';
  const checks: CheckContext = {
    platform: ctx.platform,
    env: ctx.env,
    shellPath,
    guiPath: guiPath(ctx.platform, shellPath),
  };
  const { files, servers, problems } = await readSources(options.sources ?? DOCTOR_SOURCES, ctx, options);
  const findings: DoctorFinding[] = problems.map((p) => ({
    check: 'unreadable',
    ...p,
    fix: 'fix the file or the entry by hand',
  }));
  for (const server of servers) findings.push(...(await checkServer(server, checks)));
  findings.push(...nameConflicts(servers));
  return { platform: ctx.platform, guiPath: checks.guiPath, files, servers, findings };
}

/** What a server runs, masked: the command line or the URL. Also how two entries are compared. */
export function serverTarget(entry: ServerEntry): string {
  if (!isStdioServer(entry)) return maskUrl(entry.url);
  return [entry.command, ...maskArgs(entry.args ?? [])].join(' ');
}

/** One name that runs different things in different places (clients, or mcpkit). */
function nameConflicts(servers: readonly DoctorServer[]): DoctorFinding[] {
  const byName = new Map<string, DoctorServer[]>();
  for (const server of servers) byName.set(server.name, [...(byName.get(server.name) ?? []), server]);
  const findings: DoctorFinding[] = [];
  for (const [name, group] of byName) {
    const targets = new Map<string, DoctorServer[]>();
    for (const server of group) {
      const key = identity(server.entry);
      targets.set(key, [...(targets.get(key) ?? []), server]);
    }
    if (targets.size < 2) continue;
    const where = [...targets.values()]
      .map(
        (list) => `${list.map((s) => s.label).join(', ')}: ${serverTarget((list[0] as DoctorServer).entry)}`,
      )
      .join('; ');
    const first = group[0] as DoctorServer;
    findings.push({
      check: 'name-conflict',
      source: first.source,
      label: first.label,
      file: first.file,
      server: name,
      message: `"${name}" means different servers in different places (${where})`,
      fix: 'make them the same (mcpkit import, then mcpkit export <client> --write) or rename one',
    });
  }
  return findings;
}

/** An entry's target with what does not change the server removed (npx's -y, a command's directory). */
function identity(entry: ServerEntry): string {
  if (!isStdioServer(entry)) return entry.url.replace(/\/+$/, '');
  const command =
    entry.command
      .split(/[\\/]/)
      .pop()
      ?.replace(/\.(cmd|exe)$/i, '') ?? entry.command;
  const args = (entry.args ?? []).filter((a) => !(command === 'npx' && (a === '-y' || a === '--yes')));
  return JSON.stringify([command, ...args]);
}
