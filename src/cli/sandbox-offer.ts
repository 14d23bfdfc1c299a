import {
  addServers,
  type DoctorReport,
  effectiveServers,
  isStdioServer,
  loadConfig,
  runsMcpkitGateway,
  type ServerEntry,
} from '../config/index.js';
import { sandboxSupport } from '../sandbox/index.js';
import { count } from './format.js';
import type { CliIO } from './io.js';
import { usage } from './options.js';

/**
 * A stdio entry that never said whether to run sandboxed (off by default). A gateway entry is not one:
 * it starts servers of its own, each with its own setting.
 */
function offerable(entry: ServerEntry): boolean {
  return isStdioServer(entry) && entry.sandbox === undefined && !runsMcpkitGateway(entry);
}

/** mcpkit's stdio servers to offer a sandbox to. */
function unsandboxed(report: DoctorReport): string[] {
  return report.servers.filter((s) => s.source === 'mcpkit' && offerable(s.entry)).map((s) => s.name);
}

/**
 * What `mcpkit doctor` offers: to run mcpkit's unsandboxed stdio servers in a sandbox, or, where this
 * machine cannot, why. An offer, not a problem: it never fails the run.
 */
export async function sandboxOffer(
  report: DoctorReport,
): Promise<{ line: string; json: object } | undefined> {
  const names = unsandboxed(report);
  if (names.length === 0) return undefined;
  const support = await sandboxSupport();
  if (!support.ok) {
    return {
      line: `Sandbox: mcpkit runs ${count(names.length, 'stdio server')} with all your rights, and this machine cannot sandbox ${names.length === 1 ? 'it' : 'them'}: ${support.reason}\n`,
      json: { unsandboxed: names, available: false, reason: support.reason },
    };
  }
  return {
    line: `Sandbox: mcpkit runs ${count(names.length, 'stdio server')} with all your rights (${names.join(', ')}); to run ${names.length === 1 ? 'it' : 'them'} in a sandbox: mcpkit sandbox on --all (docs/sandbox.md)\n`,
    json: { unsandboxed: names, available: true },
  };
}

/** `mcpkit sandbox on <server…> | --all`: `"sandbox": true` on stdio entries that have no sandbox key. */
export async function sandboxOn(io: CliIO, names: string[], all: boolean): Promise<void> {
  if (names.length === 0 && !all) usage('name the servers to sandbox, or give --all');
  const config = await loadConfig({ cwd: io.cwd, env: io.env });
  const servers = effectiveServers(config);
  for (const name of names)
    if (!servers.some((s) => s.name === name))
      usage(`no server named "${name}" in project or user scope; see "mcpkit list"`);
  const chosen = servers.filter((s) => (all || names.includes(s.name)) && offerable(s.entry));
  for (const server of chosen) {
    await addServers([{ name: server.name, entry: { ...server.entry, sandbox: true } }], {
      cwd: io.cwd,
      env: io.env,
      scope: server.scope,
      force: true,
    });
    io.out(
      `Sandboxed "${server.name}" (${server.scope} scope): reads except secrets, writes to its directory, no network\n`,
    );
  }
  if (chosen.length === 0)
    io.out('Nothing to change: every stdio server named already has a sandbox setting\n');
  else io.out('If one needs more, mcpkit sandbox learn <server> finds what (docs/sandbox.md)\n');
}
