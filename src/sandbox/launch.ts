import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { SandboxSetting } from '../config/index.js';
import { bwrapArgs, type PrivateDirs, SANDBOX_PROXY_PORT } from './bwrap-args.js';
import { type NetworkProxy, type ProxyEvent, startNetworkProxy } from './network-proxy.js';
import { parseNpx, prepareNpx, type StartStep } from './npx-package.js';
import { resolveProfile, type SandboxProfile } from './profile.js';
import { seatbeltProfile } from './seatbelt.js';
import { sandboxSupport } from './support.js';

/** What starting a server in a sandbox needs. */
export interface SandboxLaunchOptions {
  setting: Exclude<SandboxSetting, false>;
  command: string;
  args: readonly string[];
  /** The server's working directory (absolute). */
  cwd: string;
  /** The child's environment (already the minimal set). */
  env: Record<string, string>;
  /** Each decision of the network proxy. */
  onProxyEvent?: (event: ProxyEvent) => void;
  /** Resolves names for the proxy (tests). */
  resolve?: (host: string) => Promise<string>;
  /** Learn mode: everything allowed (reads, writes, any host through the proxy), only watched. */
  learn?: boolean;
  /** Run the server under strace, its log written to this file (learn and check: `learn.ts`). */
  traceFile?: string;
  /** Start the proxy even when no host is allowed, so what the server tries is seen (check). */
  watchNetwork?: boolean;
  /** Stops the preparation (an npx install under way) when the start is given up. */
  signal?: AbortSignal;
  /** Told when a slow step begins (`installing @acme/notes-mcp`), for a timeout to say what it cut short. */
  onStep?: (step: StartStep) => void;
}

/** A sandbox ready to start: the command line to spawn, and how to clean up once the server is gone. */
export interface SandboxLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  profile: SandboxProfile;
  dirs: PrivateDirs;
  /** Closes the proxy and removes the private dirs. */
  dispose(): Promise<void>;
}

/** Where every sandbox of this user keeps its private dirs (each sandbox sees only its own). */
export function sandboxParentDir(): string {
  return join(tmpdir(), `mcpkit-sandbox-${process.getuid?.() ?? 0}`);
}

/** Thrown when this machine cannot sandbox; `message` is the one line a user sees. */
export class SandboxUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * Prepares a server's sandbox: its private dirs (a temp dir, the deny placeholders, the proxy's socket),
 * the proxy when the profile allows any host, and bubblewrap's command line. Rejects with
 * {@link SandboxUnavailableError} where the OS cannot sandbox: never silently unsandboxed.
 */
export async function prepareSandbox(options: SandboxLaunchOptions): Promise<SandboxLaunch> {
  const support = await sandboxSupport();
  if (!support.ok) throw new SandboxUnavailableError(support.reason);
  const parent = sandboxParentDir();
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  const own = mkdtempSync(join(parent, 's-'));
  const dirs: PrivateDirs = {
    parent,
    temp: join(own, 'tmp'),
    denyDir: join(own, 'deny-dir'),
    denyFile: join(own, 'deny-file'),
  };
  mkdirSync(dirs.temp);
  mkdirSync(dirs.denyDir);
  writeFileSync(dirs.denyFile, '');
  chmodSync(dirs.denyDir, 0o000);
  chmodSync(dirs.denyFile, 0o000);
  const profile = resolveProfile(options.setting, { cwd: options.cwd, env: options.env }, dirs.temp);
  if (options.learn) Object.assign(profile, { write: ['/'], deny: [], network: ['*'] });
  let proxy: NetworkProxy | undefined;
  const env: Record<string, string> = { ...options.env, TMPDIR: dirs.temp };
  let disposed = false;
  const dispose = async () => {
    if (disposed) return;
    disposed = true;
    await proxy?.close();
    chmodSync(dirs.denyDir, 0o700);
    rmSync(own, { recursive: true, force: true });
  };
  try {
    const seatbelt = support.engine === 'seatbelt';
    if (profile.network.length > 0 || options.watchNetwork) {
      // Linux: a Unix socket bound into the sandbox, a bridge inside on its own loopback. macOS: a loopback
      // port, the only network the profile allows.
      if (!seatbelt) dirs.proxySocket = join(own, 'proxy.sock');
      proxy = await startNetworkProxy(dirs.proxySocket ?? 'tcp', {
        allow: profile.network,
        ...(options.onProxyEvent ? { onEvent: options.onProxyEvent } : {}),
        ...(options.resolve ? { resolve: options.resolve } : {}),
      });
      const url = `http://127.0.0.1:${proxy.port ?? SANDBOX_PROXY_PORT}`;
      Object.assign(env, {
        HTTP_PROXY: url,
        HTTPS_PROXY: url,
        http_proxy: url,
        https_proxy: url,
        ALL_PROXY: `socks5h://127.0.0.1:${proxy.port ?? SANDBOX_PROXY_PORT}`,
        all_proxy: `socks5h://127.0.0.1:${proxy.port ?? SANDBOX_PROXY_PORT}`,
        // Node >= 24 sends fetch and http through HTTP_PROXY when asked to.
        NODE_USE_ENV_PROXY: '1',
      });
      delete env.NO_PROXY;
      delete env.no_proxy;
    }
    // An npx server runs its installed bin, installed first if need be (npx-package.ts says why).
    const npx = parseNpx(options.command, options.args);
    const command = npx
      ? await prepareNpx(npx, options.env, options.cwd, { signal: options.signal, onStep: options.onStep })
      : options.command;
    // An npx line mcpkit could not read (`-p`, `-c`): npx runs in the sandbox, from its cache only, so a
    // package that is not there fails at once (ENOTCACHED) instead of waiting on DNS until the start times out.
    if (!npx && basename(options.command) === 'npx') env.npm_config_offline = 'true';
    if (seatbelt) {
      const text = seatbeltProfile(profile, dirs, proxy?.port);
      const seatbeltArgs = ['-p', text, command, ...(npx ? npx.args : options.args)];
      return { command: support.program, args: seatbeltArgs, env, profile, dirs, dispose };
    }
    const args = bwrapArgs({
      profile,
      cwd: options.cwd,
      command,
      args: npx ? npx.args : options.args,
      dirs,
      nodePath: process.execPath,
      ...(options.traceFile ? { traceFile: options.traceFile } : {}),
    });
    return { command: support.program, args, env, profile, dirs, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
