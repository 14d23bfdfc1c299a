import { realpathSync } from 'node:fs';
import type { PrivateDirs } from './bwrap-args.js';
import type { SandboxProfile } from './profile.js';

/** Seatbelt matches the real path (`/tmp` is `/private/tmp` on macOS): each path as the kernel sees it. */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The macOS sandbox: a Seatbelt profile (Apple's SBPL, what `sandbox-exec -p` takes) for a resolved profile.
 * Later rules win in SBPL, so: everything allowed; every write denied, then the writable places allowed;
 * the other sandboxes' private dirs hidden, then its own allowed; what is denied denied again (a secret
 * inside a writable place stays hidden); the network denied but the proxy's loopback port. macOS has no
 * PID namespace: a server's descendants are reached through its process group and mcpkit's marks only
 * (docs/sandbox.md). Written to Apple's SBPL reference; this project's CI is Linux, so the test checks the text.
 */
export function seatbeltProfile(profile: SandboxProfile, dirs: PrivateDirs, proxyPort?: number): string {
  const quote = (path: string) => `"${real(path).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
  const places = (paths: readonly string[]) => paths.map((path) => `(subpath ${quote(path)})`).join(' ');
  const lines = [
    '(version 1)',
    '(allow default)',
    '(deny file-write*)',
    `(allow file-write* ${places(profile.write)} (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/fd/"))`,
    `(deny file-read* file-write* ${places([dirs.parent])})`,
    `(allow file-read* file-write* ${places([dirs.temp])})`,
  ];
  if (profile.deny.length > 0) lines.push(`(deny file-read* file-write* ${places(profile.deny)})`);
  lines.push('(deny network*)');
  if (proxyPort !== undefined) lines.push(`(allow network-outbound (remote ip "localhost:${proxyPort}"))`);
  return `${lines.join('\n')}\n`;
}
