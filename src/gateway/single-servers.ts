import type { RuntimeServerConfig } from '../client/index.js';

/**
 * The servers as a gateway replica runs them: a stdio server marked `single: <url>` (one that keeps state and
 * must run once) is not started by each replica but reached at that URL, where one process serves it; its
 * common options (timeouts, tool filters, alwaysLoad) stay. Other servers are as configured.
 */
export function asReplica(servers: readonly RuntimeServerConfig[]): RuntimeServerConfig[] {
  return servers.map((server) => {
    const entry = server.entry as Record<string, unknown>;
    if (typeof entry.single !== 'string' || typeof entry.command !== 'string') return server;
    const { command: _c, args: _a, env: _e, cwd: _w, inheritEnv: _i, single, type: _t, ...common } = entry;
    return { ...server, entry: { ...common, type: 'http', url: single } as RuntimeServerConfig['entry'] };
  });
}
