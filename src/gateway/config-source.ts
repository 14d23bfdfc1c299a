import { watch } from 'chokidar';
import type { RuntimeServerConfig } from '../client/index.js';
import { type ConfigLocationOptions, effectiveServers, loadConfig } from '../config/index.js';

/** Which configured servers the gateway serves. */
export interface ServerSelection {
  /** Only these names (`--only`). */
  only?: readonly string[];
  /** Not these names (`--except`). */
  except?: readonly string[];
  /** What named them, for the warning about a name that is not configured (default `--only / --except`). */
  namedIn?: string;
}

/**
 * The configured servers (both scopes, project wins) the selection lets through, with warnings, and how many
 * are configured in all (`configured`, whatever the selection).
 */
export async function selectedServers(
  location: ConfigLocationOptions,
  selection: ServerSelection,
): Promise<{ servers: RuntimeServerConfig[]; configured: number; warnings: string[]; files: string[] }> {
  const config = await loadConfig(location);
  const warnings = [...config.warnings];
  const servers = effectiveServers(config)
    .filter((s) => selection.only === undefined || selection.only.includes(s.name))
    .filter((s) => !selection.except?.includes(s.name))
    .map(({ name, entry }) => ({ name, entry }));
  const names = new Set(effectiveServers(config).map((s) => s.name));
  for (const name of [...(selection.only ?? []), ...(selection.except ?? [])])
    if (!names.has(name))
      warnings.push(`no configured server "${name}" (named in ${selection.namedIn ?? '--only / --except'})`);
  return { servers, configured: names.size, warnings, files: [config.files.project, config.files.user] };
}

/** A running watch; `close()` stops it. */
export interface Watch {
  /** Resolves once the files are watched: a change made before that may go unseen. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Calls `onChange` (debounced) when any of the files is created, changed or removed — including the
 * atomic temp-and-rename writes editors and mcpkit itself make. Missing files are watched for creation.
 */
export function watchFiles(files: readonly string[], onChange: () => void, debounceMs = 100): Watch {
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch([...files], { ignoreInitial: true, atomic: true });
  const fire = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
  };
  watcher.on('add', fire).on('change', fire).on('unlink', fire);
  watcher.on('error', () => undefined);
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    ready,
    close: async () => {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}
