import { join } from 'node:path';
import type { ClientContext } from './types.js';

/** The per-user application-data directory the desktop apps use (Claude Desktop, VS Code). */
export function appDataDir(ctx: ClientContext): string {
  if (ctx.platform === 'darwin') return join(ctx.home, 'Library', 'Application Support');
  if (ctx.platform === 'win32') return ctx.env.APPDATA || join(ctx.home, 'AppData', 'Roaming');
  return ctx.env.XDG_CONFIG_HOME || join(ctx.home, '.config');
}

/** VS Code's user settings folder, where its user-level mcp.json and extension storage live. */
export function vscodeUserDir(ctx: ClientContext): string {
  return join(appDataDir(ctx), 'Code', 'User');
}

/** `$CLAUDE_CONFIG_DIR/.claude.json` when set, then `~/.claude.json`. */
export function claudeCodePaths(ctx: ClientContext): string[] {
  const dir = ctx.env.CLAUDE_CONFIG_DIR;
  const home = join(ctx.home, '.claude.json');
  return dir ? [join(dir, '.claude.json'), home] : [home];
}

/** Codex's user config: `$CODEX_HOME/config.toml`, default `~/.codex/config.toml`. */
export function codexUserPath(ctx: ClientContext): string {
  return join(ctx.env.CODEX_HOME || join(ctx.home, '.codex'), 'config.toml');
}
