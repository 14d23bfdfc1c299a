import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where mcpkit's own config lives: `project` is `.mcp.json` in the working directory, `user` is per user. */
export type Scope = 'project' | 'user';

/** The scopes in precedence order: a name in `project` shadows the same name in `user`. */
export const SCOPES: readonly Scope[] = ['project', 'user'];

/** The process facts config locations depend on; tests and embedders pass their own. */
export interface ConfigLocationOptions {
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

/** The user's home directory: `$HOME` when set, so tests can point it elsewhere. */
export function homeDirectory(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.HOME || homedir();
}

/**
 * The user config directory: `$MCPKIT_CONFIG_DIR`, else `$XDG_CONFIG_HOME/mcpkit`, else
 * `~/.config/mcpkit`.
 */
export function userConfigDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (env.MCPKIT_CONFIG_DIR) return env.MCPKIT_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(homeDirectory(env), '.config');
  return join(base, 'mcpkit');
}

/** The file that holds a scope's servers. No search of parent directories, as MCP clients do. */
export function configFile(scope: Scope, options: ConfigLocationOptions = {}): string {
  if (scope === 'project') return join(options.cwd ?? process.cwd(), '.mcp.json');
  return join(userConfigDir(options.env ?? process.env), 'config.json');
}

/**
 * The user cache directory: `$MCPKIT_CACHE_DIR`, else `$XDG_CACHE_HOME/mcpkit`, else the platform's (`~/.cache/mcpkit`,
 * `~/Library/Caches/mcpkit` on macOS, `%LOCALAPPDATA%\mcpkit\Cache` on Windows). Undefined when `env` names no home
 * at all (an embedder's empty environment: nothing is written then).
 */
export function userCacheDir(
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  if (env.MCPKIT_CACHE_DIR) return env.MCPKIT_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'mcpkit');
  if (process.platform === 'win32')
    return env.LOCALAPPDATA ? join(env.LOCALAPPDATA, 'mcpkit', 'Cache') : undefined;
  if (!env.HOME) return undefined;
  return process.platform === 'darwin'
    ? join(env.HOME, 'Library', 'Caches', 'mcpkit')
    : join(env.HOME, '.cache', 'mcpkit');
}

/**
 * The user state directory (what outlives a run but is no config: the running gateways' runtime files):
 * `$MCPKIT_STATE_DIR`, else `$XDG_STATE_HOME/mcpkit`, else `~/.local/state/mcpkit` (`%LOCALAPPDATA%\mcpkit\State`
 * on Windows).
 */
export function userStateDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (env.MCPKIT_STATE_DIR) return env.MCPKIT_STATE_DIR;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'mcpkit');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'mcpkit', 'State');
  return join(homeDirectory(env), '.local', 'state', 'mcpkit');
}

/**
 * mcpkit's data directory, where bundles are unpacked: `$MCPKIT_DATA_DIR`, else `$XDG_DATA_HOME/mcpkit`,
 * else `~/.local/share/mcpkit` (`%LOCALAPPDATA%\mcpkit\Data` on Windows).
 */
export function userDataDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (env.MCPKIT_DATA_DIR) return env.MCPKIT_DATA_DIR;
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, 'mcpkit');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'mcpkit', 'Data');
  return join(homeDirectory(env), '.local', 'share', 'mcpkit');
}
