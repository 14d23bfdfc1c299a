import type { ClientContext } from './formats/types.js';
import { homeDirectory } from './paths.js';

/** Options shared by import and export: the process facts client file locations depend on. */
export interface ClientContextOptions {
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
  platform?: NodeJS.Platform;
}

/** The context client formats resolve their paths in, from options or the current process. */
export function clientContext(options: ClientContextOptions = {}): ClientContext {
  const env = options.env ?? process.env;
  return {
    cwd: options.cwd ?? process.cwd(),
    home: homeDirectory(env),
    env,
    platform: options.platform ?? process.platform,
  };
}
