import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { NET_BRIDGE_MARKER, NET_BRIDGE_SOURCE } from '../internal/net-bridge.js';
import type { SandboxProfile } from './profile.js';

/** The port the in-sandbox bridge listens on; the sandbox has its own loopback, so it never clashes. */
export const SANDBOX_PROXY_PORT = 3128;

/** Where a sandbox's private files are, on the host. */
export interface PrivateDirs {
  /** The parent of every sandbox's private dir: hidden from each sandbox but its own part. */
  parent: string;
  /** The server's private temp dir (writable, `TMPDIR`). */
  temp: string;
  /** An empty directory and an empty file, mode 000, bound over what is denied. */
  denyDir: string;
  denyFile: string;
  /** The proxy's Unix socket, when the server may reach the network. */
  proxySocket?: string;
}

/** What bubblewrap is asked to run. */
export interface BwrapPlan {
  profile: SandboxProfile;
  cwd: string;
  command: string;
  args: readonly string[];
  dirs: PrivateDirs;
  /** The node that runs the network bridge (this process's), when there is a network. */
  nodePath: string;
  /** Run the command under strace inside the sandbox, logging to this file (learn and check). */
  traceFile?: string;
}

/** The calls learn and check watch: what opens, creates, removes or runs a path. */
export const TRACED_CALLS =
  'open,openat,openat2,creat,mkdir,mkdirat,unlink,unlinkat,rmdir,rename,renameat,renameat2,truncate,symlink,symlinkat,link,linkat,execve';

/**
 * The bubblewrap arguments for a plan. Every namespace is new (user, PID, IPC, UTS, cgroup, network), all
 * capabilities are dropped (so a root user is held by file modes too), the sandbox dies with its parent,
 * and /proc shows only the sandbox's processes. The host's tree is mounted read-only, the writable paths
 * over it, then the private dirs, then what is denied, last, so a denial wins over a writable parent.
 */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const { profile, dirs } = plan;
  const args = [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--unshare-net',
    '--die-with-parent',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
  ];
  for (const path of profile.write) args.push('--bind-try', path, path);
  args.push('--tmpfs', dirs.parent, '--bind', dirs.temp, dirs.temp);
  if (dirs.proxySocket) args.push('--ro-bind', dirs.proxySocket, dirs.proxySocket);
  for (const path of profile.deny) {
    args.push('--ro-bind', isDirectory(path) ? dirs.denyDir : dirs.denyFile, path);
  }
  if (plan.traceFile) args.push('--bind', dirname(plan.traceFile), dirname(plan.traceFile));
  args.push('--chdir', plan.cwd, '--');
  const tracer = plan.traceFile
    ? ['strace', '-f', '-qq', '-s', '4096', '-e', `trace=${TRACED_CALLS}`, '-o', plan.traceFile, '--']
    : [];
  const command = [...tracer, plan.command, ...plan.args];
  if (dirs.proxySocket) {
    args.push(
      plan.nodePath,
      '-e',
      NET_BRIDGE_SOURCE,
      NET_BRIDGE_MARKER,
      String(SANDBOX_PROXY_PORT),
      dirs.proxySocket,
      ...command,
    );
  } else args.push(...command);
  return args;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
