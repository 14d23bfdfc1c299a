import { existsSync, readdirSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { homeDirectory, type SandboxSetting, userConfigDir } from '../config/index.js';

/**
 * A sandbox profile made concrete for one start of one server: absolute paths, hosts as written. Reads are
 * allowed everywhere except `deny`; writes only to `write`; the network only to `network` (through the proxy).
 */
export interface SandboxProfile {
  /** Paths the server may write (its working directory, its private temp dir, what the entry adds). */
  write: string[];
  /** Paths hidden from the server: opening one, or anything under it, fails with EACCES. */
  deny: string[];
  /** Host patterns the proxy lets through (`api.github.com`, `*.example.com`); empty: no network. */
  network: string[];
}

/** What a profile is resolved against. */
export interface ProfileContext {
  /** The server's working directory (the entry's `cwd`, else the caller's). */
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * The secrets no server reads unless its entry says so (`filesystem.read`), relative to the home directory:
 * keys, cloud credentials, tokens of package managers and CLIs, browser profiles.
 */
export const DEFAULT_DENIED_IN_HOME = [
  '.ssh',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.gnupg',
  '.kube',
  '.docker/config.json',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.config/gh',
  '.password-store',
  '.mozilla',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
  'snap/firefox',
  'Library/Keychains',
  'Library/Application Support/Google/Chrome',
  'Library/Application Support/Firefox',
] as const;

/** Sockets that hand out more rights than the user's own (a container daemon is root). */
const DEFAULT_DENIED_SOCKETS = ['/var/run/docker.sock', '/run/docker.sock', '/run/containerd'];

/**
 * The user's session sockets, which the read-only mount would leave reachable: the runtime dir (the session
 * bus, the keyring, gpg-agent, the desktop's portals), X11's (a keyboard and a screen), ssh-agent's dirs.
 */
function sessionSockets(env: Readonly<Record<string, string | undefined>>): string[] {
  const runtime = env.XDG_RUNTIME_DIR || `/run/user/${process.getuid?.() ?? 0}`;
  let agents: string[] = [];
  try {
    agents = readdirSync('/tmp')
      .filter((name) => name.startsWith('ssh-'))
      .map((name) => join('/tmp', name));
  } catch {}
  return [runtime, '/tmp/.X11-unix', '/tmp/.ICE-unix', ...agents];
}

/** `~` and `~/x` to the home directory; relative paths against the server's working directory. */
export function expandPath(path: string, context: ProfileContext): string {
  const home = homeDirectory(context.env);
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(context.cwd, path);
}

/** True when `path` is `base` or inside it. */
export function isWithin(path: string, base: string): boolean {
  return path === base || path.startsWith(base.endsWith('/') ? base : `${base}/`);
}

/** The `.env` files of the working directory (`.env`, `.env.local`, …), which hold a project's secrets. */
function envFiles(cwd: string): string[] {
  try {
    return readdirSync(cwd)
      .filter((name) => name === '.env' || name.startsWith('.env.'))
      .map((name) => join(cwd, name));
  } catch {
    return [];
  }
}

/**
 * The profile an entry's `sandbox` setting means (`true`: the defaults). Only paths that exist are denied:
 * what does not exist cannot be read, and the server cannot create it outside its writable paths.
 */
export function resolveProfile(
  setting: SandboxSetting,
  context: ProfileContext,
  privateTemp: string,
): SandboxProfile {
  const custom = typeof setting === 'object' ? setting : {};
  const expand = (path: string) => expandPath(path, context);
  const read = (custom.filesystem?.read ?? []).map(expand);
  const home = homeDirectory(context.env);
  const defaults = [
    ...DEFAULT_DENIED_IN_HOME.map((path) => join(home, path)),
    // mcpkit's own config: its token store (oauth.json) and the env values of every other server.
    userConfigDir(context.env),
    ...DEFAULT_DENIED_SOCKETS,
    ...sessionSockets(context.env),
    ...envFiles(context.cwd),
  ];
  const written = (custom.filesystem?.write ?? []).map(expand);
  // `read` lifts a default it names or holds; `write` one it names or points into (a write to `~` is no
  // read of `~/.ssh`); a user's own `deny` always holds.
  const lifted = defaults.filter(
    (path) =>
      !read.some((allowed) => isWithin(path, allowed)) && !written.some((place) => isWithin(place, path)),
  );
  const deny = unique([...lifted, ...(custom.filesystem?.deny ?? []).map(expand)]).filter((path) =>
    existsSync(path),
  );
  const write = unique([context.cwd, privateTemp, ...(custom.filesystem?.write ?? []).map(expand)]);
  return { write, deny, network: unique(custom.network?.allow ?? []) };
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
