import { dirname } from 'node:path';
import type { SandboxSetting } from '../config/index.js';
import { isWithin, type ProfileContext, resolveProfile } from './profile.js';
import type { PathAccess } from './trace.js';

/** Paths the kernel makes up per process, never the profile's business. */
const VIRTUAL = ['/proc', '/sys', '/dev'];

/** What a run saw: the paths it touched (strace) and the hosts it reached (the proxy). */
export interface Observed {
  accesses: PathAccess[];
  hosts: { host: string; port: number }[];
  /** The sandbox's own private dirs of that run (its temp dir): never part of a profile. */
  privateParent: string;
}

/** How a host goes into `network.allow`: bare for the web's ports, else `host:port`. */
export function hostPattern(host: string, port: number): string {
  return port === 443 || port === 80 ? host : `${host}:${port}`;
}

/** Keeps the shortest paths: one inside another is covered by it. */
function outermost(paths: Iterable<string>): string[] {
  const sorted = [...new Set(paths)].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const path of sorted) if (!kept.some((k) => isWithin(path, k))) kept.push(path);
  return kept.sort();
}

/**
 * The smallest profile (on top of the defaults) that covers what a learn run saw: the default-denied
 * places it read (`filesystem.read` names the denied root), the places outside its working directory it
 * wrote (a file it created or removed: its directory; a file it changed: that file), the hosts it reached.
 */
export function learnedProfile(observed: Observed, context: ProfileContext): SandboxSetting {
  const defaults = resolveProfile(true, context, observed.privateParent);
  const outside = (path: string) =>
    !VIRTUAL.some((root) => isWithin(path, root)) && !isWithin(path, observed.privateParent);
  const read = new Set<string>();
  const write = new Set<string>();
  for (const access of observed.accesses) {
    if (access.error !== undefined || !outside(access.path)) continue;
    const deniedRoot = defaults.deny.find((denied) => isWithin(access.path, denied));
    if (deniedRoot) read.add(deniedRoot);
    if (access.access === 'write' && !defaults.write.some((w) => isWithin(access.path, w)))
      write.add(access.path);
  }
  // A write that created or removed a file needs its directory; a change of a file that stays, the file.
  const writable = [...write].map((path) => dirname(path));
  const filesystem = {
    ...(read.size > 0 ? { read: outermost(read).map((p) => tilde(p, context)) } : {}),
    ...(writable.length > 0 ? { write: outermost(writable).map((p) => tilde(p, context)) } : {}),
  };
  const hosts = [...new Set(observed.hosts.map((h) => hostPattern(h.host, h.port)))].sort();
  const setting = {
    ...(Object.keys(filesystem).length > 0 ? { filesystem } : {}),
    ...(hosts.length > 0 ? { network: { allow: hosts } } : {}),
  };
  return Object.keys(setting).length > 0 ? setting : true;
}

/** A path under the home directory written as `~/…`, as a user would. */
function tilde(path: string, context: ProfileContext): string {
  const home = context.env.HOME;
  return home && isWithin(path, home) ? `~${path.slice(home.length)}` : path;
}

/** One refused access and the line that would allow it. */
export interface Denial {
  what: string;
  fix: string;
}

/**
 * The denials of a check run, each once: a path refused (EACCES / EPERM: hidden; EROFS: not writable) and
 * a host the proxy refused, with the line to add to the entry's sandbox.
 */
export function denialsOf(observed: Observed, context: ProfileContext, setting: SandboxSetting): Denial[] {
  const profile = resolveProfile(setting, context, observed.privateParent);
  const seen = new Map<string, Denial>();
  for (const access of observed.accesses) {
    if (!['EACCES', 'EPERM', 'EROFS'].includes(access.error ?? '') || !access.path.startsWith('/')) continue;
    if (VIRTUAL.some((root) => isWithin(access.path, root))) continue;
    const deniedRoot = profile.deny.find((denied) => isWithin(access.path, denied));
    if (deniedRoot && access.error !== 'EROFS') {
      const key = `read ${deniedRoot}`;
      if (!seen.has(key))
        seen.set(key, {
          what: `read ${tilde(access.path, context)}`,
          fix: `add "${tilde(deniedRoot, context)}" to sandbox.filesystem.read`,
        });
    } else if (access.error === 'EROFS' || access.access === 'write') {
      const place = dirname(access.path);
      const key = `write ${place}`;
      if (!seen.has(key))
        seen.set(key, {
          what: `write ${tilde(access.path, context)}`,
          fix: `add "${tilde(place, context)}" to sandbox.filesystem.write`,
        });
    }
  }
  for (const { host, port } of observed.hosts) {
    const pattern = hostPattern(host, port);
    if (!seen.has(`host ${pattern}`))
      seen.set(`host ${pattern}`, {
        what: `connect ${host}:${port}`,
        fix: `add "${pattern}" to sandbox.network.allow`,
      });
  }
  return [...seen.values()];
}
