import type { RuntimeServerConfig } from '../../src/client/index.js';
import type { StdioServer } from '../../src/config/index.js';
import { fixture } from './servers.js';

/**
 * The skills fixture (`servers/skills-server.mjs`, on the SDK v2's skills extension) as a server entry:
 * `alpha` serves the 2026-07-28 era (and 2025 for old clients), `beta` the 2025 handshake only.
 */
export function skillsServer(set: 'alpha' | 'beta', env: Record<string, string> = {}): StdioServer {
  return {
    command: process.execPath,
    args: [fixture('servers/skills-server.mjs')],
    env: { SKILLS_SET: set, SKILLS_ERA: set === 'alpha' ? 'modern' : 'legacy', ...env },
  };
}

/** {@link skillsServer} as an upstream of a gateway, named after its set. */
export function skillsUpstream(set: 'alpha' | 'beta', env: Record<string, string> = {}): RuntimeServerConfig {
  return { name: set, entry: skillsServer(set, env) };
}

/** The MCP Apps fixture (`servers/app-server.mjs`, on ext-apps) as an upstream named `name`. */
export function appUpstream(name: string, era: 'modern' | 'legacy'): RuntimeServerConfig {
  return {
    name,
    entry: {
      command: process.execPath,
      args: [fixture('servers/app-server.mjs')],
      env: { APP_NAME: name, APP_ERA: era },
    },
  };
}
