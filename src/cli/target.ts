import type { RuntimeServerConfig } from '../client/index.js';
import { effectiveServers, findServer, loadConfig, type ServerEntry } from '../config/index.js';
import { displayWords } from './format.js';
import type { CliIO } from './io.js';

/**
 * Turns a `<server>` argument into servers to run: a configured name, a URL (http, with SSE fallback), or
 * the words after `--` (an ad-hoc stdio server). Without any, every configured server.
 */
export async function resolveTargets(
  io: CliIO,
  server: string | undefined,
  adhoc: readonly string[] | undefined,
): Promise<RuntimeServerConfig[]> {
  if (adhoc && adhoc.length > 0) {
    const [command, ...args] = adhoc as [string, ...string[]];
    const entry: ServerEntry = { command, ...(args.length > 0 ? { args } : {}) };
    // Named by its command line (`npx -y foo`), as the user typed it: messages and listings say which.
    return [{ name: displayWords(adhoc), entry }];
  }
  if (server !== undefined && /^https?:\/\//i.test(server)) {
    // Named by the URL as given, like an ad-hoc command line: `127-0-0-1-8765` said less.
    return [{ name: server, entry: { url: server } }];
  }
  const config = await loadConfig({ cwd: io.cwd, env: io.env });
  for (const warning of config.warnings) io.err(`warning: ${warning}\n`);
  if (server !== undefined) {
    const found = findServer(config, server);
    return [{ name: found.name, entry: found.entry }];
  }
  return effectiveServers(config)
    .filter((s) => s.entry.disabled !== true)
    .map((s) => ({ name: s.name, entry: s.entry }));
}
