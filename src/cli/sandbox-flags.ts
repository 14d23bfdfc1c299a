import type { Command } from 'commander';
import {
  isStdioServer,
  type SandboxSetting,
  SandboxSettingSchema,
  type ServerEntry,
} from '../config/index.js';
import { sandboxSupport } from '../sandbox/index.js';
import { collect, usage } from './options.js';

/** `--sandbox`, `--allow-net`, `--allow-write`, `--allow-read`: what every `mcpkit add` takes. */
export interface SandboxFlags {
  sandbox?: boolean;
  allowNet?: string[];
  allowWrite?: string[];
  allowRead?: string[];
}

/** Adds the sandbox flags to an add command. */
export function sandboxOptions(command: Command): Command {
  return command
    .option('--sandbox', 'run this stdio server in an OS sandbox (docs/sandbox.md)')
    .option('--allow-net <host>', 'sandbox: a host it may reach (repeatable; implies --sandbox)', collect, [])
    .option(
      '--allow-write <path>',
      'sandbox: a path it may write (repeatable; implies --sandbox)',
      collect,
      [],
    )
    .option(
      '--allow-read <path>',
      'sandbox: a path it may read that the defaults hide, e.g. ~/.aws (repeatable; implies --sandbox)',
      collect,
      [],
    );
}

/** The `sandbox` value the flags describe; undefined when none was given. */
export function sandboxFromFlags(flags: SandboxFlags): SandboxSetting | undefined {
  const net = flags.allowNet ?? [];
  const write = flags.allowWrite ?? [];
  const read = flags.allowRead ?? [];
  if (!flags.sandbox && net.length + write.length + read.length === 0) return undefined;
  if (net.length + write.length + read.length === 0) return true;
  const filesystem = {
    ...(read.length > 0 ? { read } : {}),
    ...(write.length > 0 ? { write } : {}),
  };
  const setting = {
    ...(Object.keys(filesystem).length > 0 ? { filesystem } : {}),
    ...(net.length > 0 ? { network: { allow: net } } : {}),
  };
  const parsed = SandboxSettingSchema.safeParse(setting);
  if (!parsed.success) {
    const bad = net.find((host) => !SandboxSettingSchema.safeParse({ network: { allow: [host] } }).success);
    usage(`--allow-net "${bad ?? net.join(',')}": expected a host name, "*.domain" or "host:port"`);
  }
  return parsed.data;
}

/** The entry with the flags' sandbox; a remote entry with sandbox flags is a usage error. */
export function withSandboxFlags(entry: ServerEntry, flags: SandboxFlags): ServerEntry {
  const sandbox = sandboxFromFlags(flags);
  if (sandbox === undefined) return entry;
  if (!isStdioServer(entry))
    usage(
      '--sandbox, --allow-net, --allow-write and --allow-read are for stdio servers (a remote server runs elsewhere)',
    );
  return { ...entry, sandbox };
}

/** Why this machine cannot sandbox, asked only when an entry wants a sandbox (a ~5 ms probe). */
export async function sandboxUnavailable(entries: readonly ServerEntry[]): Promise<string | undefined> {
  if (!entries.some((entry) => isStdioServer(entry) && entry.sandbox)) return undefined;
  const support = await sandboxSupport();
  return support.ok ? undefined : support.reason;
}

/**
 * How `mcpkit list` marks a stdio entry's sandbox: `[sandbox: on]` (with the hosts it may reach),
 * `[sandbox: off]` for an explicit `false`; nothing for an entry that never asked (off by default).
 */
export function sandboxMark(entry: ServerEntry, unavailable?: string): string {
  if (!isStdioServer(entry) || entry.sandbox === undefined) return '';
  if (entry.sandbox === false) return '[sandbox: off]';
  if (unavailable !== undefined) return `[sandbox: unavailable, ${unavailable}: it will not start]`;
  const hosts = typeof entry.sandbox === 'object' ? (entry.sandbox.network?.allow ?? []) : [];
  return `[sandbox: on${hosts.length > 0 ? `, net: ${hosts.join(' ')}` : ', no net'}]`;
}
