import { childEnvironment } from '../internal/child-environment.js';
import { runToEnd } from '../internal/run-to-end.js';

/**
 * Whether this machine can sandbox a server (with which program: bubblewrap on Linux, `sandbox-exec` on
 * macOS), and when not, why in one line.
 */
export type SandboxSupport =
  | { ok: true; engine: 'bwrap' | 'seatbelt'; program: string }
  | { ok: false; reason: string };

let probe: Promise<SandboxSupport> | undefined;

/**
 * Whether sandboxes work here: Linux with bubblewrap that can make a user namespace (it may be installed
 * and still refused: `kernel.unprivileged_userns_clone=0`, AppArmor's restriction on Ubuntu 24.04, a
 * container without the right). Probed once per process by running `true` in the same namespaces a server
 * gets (~5 ms).
 */
export function sandboxSupport(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<SandboxSupport> {
  probe ??= check(env);
  return probe;
}

async function check(env: Readonly<Record<string, string | undefined>>): Promise<SandboxSupport> {
  if (process.platform === 'darwin') {
    const program = '/usr/bin/sandbox-exec';
    const outcome = await runToEnd(program, ['-p', '(version 1)(allow default)', '/usr/bin/true'], {});
    return outcome.code === 0
      ? { ok: true, engine: 'seatbelt', program }
      : {
          ok: false,
          reason: `sandbox-exec cannot run here (${outcome.error?.message ?? outcome.stderr.trim()})`,
        };
  }
  if (process.platform !== 'linux') {
    return {
      ok: false,
      reason: `mcpkit sandboxes servers on Linux (bubblewrap) and macOS (sandbox-exec); ${process.platform} is not supported`,
    };
  }
  const bwrap = env.MCPKIT_BWRAP || 'bwrap';
  const outcome = await runToEnd(
    bwrap,
    ['--unshare-user', '--unshare-pid', '--unshare-net', '--die-with-parent', '--ro-bind', '/', '/', 'true'],
    childEnvironment(env, undefined),
  );
  if (outcome.error?.code === 'ENOENT') {
    return {
      ok: false,
      reason: 'bubblewrap is not installed (apt-get install bubblewrap, dnf install bubblewrap)',
    };
  }
  if (outcome.code !== 0) {
    const said = outcome.stderr.trim().split('\n').pop() || outcome.error?.message || `exit ${outcome.code}`;
    return {
      ok: false,
      reason: `bubblewrap cannot create a sandbox here (${said}); are user namespaces enabled?`,
    };
  }
  return { ok: true, engine: 'bwrap', program: bwrap };
}

/** Forgets the probe (tests that change `MCPKIT_BWRAP`). */
export function forgetSandboxSupport(): void {
  probe = undefined;
}
