import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { userStateDir } from '../../../config/index.js';
import { readTextIfExists, writeFileAtomic } from '../../../internal/text-file.js';

type Env = Readonly<Record<string, string | undefined>>;

/** What a gateway serving HTTP leaves for `mcpkit dashboard` to find it (a file readable by its user only). */
export interface GatewayRuntime {
  pid: number;
  /** The dashboard's address, e.g. `http://127.0.0.1:41234/`. */
  dashboard: string;
  /** The MCP endpoint. */
  mcp: string;
  startedAt: string;
  /** The dashboard's current one-time login key (`?key=`): replaced each time it is used. */
  key: string;
}

/** Where running gateways keep their runtime files: `<user state dir>/gateways/`. */
export function runtimeDir(env: Env): string {
  return join(userStateDir(env), 'gateways');
}

/** Writes (or rewrites) this gateway's runtime file; returns a function that removes it. */
export async function writeGatewayRuntime(env: Env, runtime: GatewayRuntime): Promise<() => Promise<void>> {
  const file = join(runtimeDir(env), `${runtime.pid}.json`);
  await writeFileAtomic(file, `${JSON.stringify(runtime, null, 2)}\n`, { mode: 0o600 });
  return () => rm(file, { force: true });
}

/**
 * The gateways running now, newest first. A file whose process is gone (a gateway that was killed) is
 * removed on the way.
 */
export async function runningGateways(env: Env): Promise<GatewayRuntime[]> {
  const dir = runtimeDir(env);
  const names = await readdir(dir).catch(() => [] as string[]);
  const found: GatewayRuntime[] = [];
  for (const name of names.filter((n) => /^\d+\.json$/u.test(n))) {
    const text = await readTextIfExists(join(dir, name));
    let runtime: GatewayRuntime | undefined;
    try {
      runtime = text === undefined ? undefined : (JSON.parse(text) as GatewayRuntime);
    } catch {
      runtime = undefined;
    }
    if (runtime && typeof runtime.dashboard === 'string' && isAlive(runtime.pid)) found.push(runtime);
    else await rm(join(dir, name), { force: true });
  }
  return found.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, but another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
