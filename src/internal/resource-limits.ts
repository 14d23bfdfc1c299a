import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Per-process resource limits for a spawned program, applied by util-linux `prlimit` as a prefix:
 * `prlimit --data=N --cpu=S:S+1 -- program args…`. prlimit sets the limits and execs the program, with
 * no shell in between, and every process it forks inherits them. Node has no setrlimit of its own.
 *
 * Memory is RLIMIT_DATA (heap and private writable mappings), not RLIMIT_AS: V8 reserves gigabytes of
 * address space it never touches, so node cannot even start under `--as=1G`, while `--data=256M` lets it
 * start and stops it when it really allocates (measured on Linux 6.x, Node 20). CPU is RLIMIT_CPU: the
 * kernel sends SIGXCPU at the soft limit and SIGKILL one second later.
 */
export interface ResourceLimits {
  /** Bytes of data segment per process. */
  memoryBytes?: number;
  /** CPU seconds per process. */
  cpuSeconds?: number;
}

let cached: string | null | undefined;

/** Where prlimit is (the bridge's PATH, then /usr/bin and /bin), or undefined when it is not installed. */
export function findPrlimit(path: string | undefined = process.env.PATH): string | undefined {
  if (cached !== undefined) return cached ?? undefined;
  const dirs = [...(path ?? '').split(delimiter).filter((d) => d !== ''), '/usr/bin', '/bin'];
  cached = null;
  for (const dir of dirs) {
    try {
      accessSync(join(dir, 'prlimit'), constants.X_OK);
      cached = join(dir, 'prlimit');
      break;
    } catch {
      // not here
    }
  }
  return cached ?? undefined;
}

/** Whether any limit is set. */
export function hasLimits(limits: ResourceLimits | undefined): limits is ResourceLimits {
  return limits?.memoryBytes !== undefined || limits?.cpuSeconds !== undefined;
}

/**
 * The command and args that run `command` under `limits`; throws when limits are asked for and prlimit is
 * missing: a limit the contract relies on is never silently dropped.
 */
export function withResourceLimits(
  command: string,
  args: readonly string[],
  limits: ResourceLimits | undefined,
): { command: string; args: string[] } {
  if (!hasLimits(limits)) return { command, args: [...args] };
  const prlimit = findPrlimit();
  if (prlimit === undefined)
    throw new Error('memory/cpu limits need prlimit (util-linux), which is not installed');
  const flags: string[] = [];
  if (limits.memoryBytes !== undefined) flags.push(`--data=${limits.memoryBytes}`);
  if (limits.cpuSeconds !== undefined) flags.push(`--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`);
  return { command: prlimit, args: [...flags, '--', command, ...args] };
}

/** prlimit's own line when it could not exec the program (exit 126/127), e.g. "failed to execute x: …". */
export function prlimitExecFailure(exitCode: number | null, stderr: string): string | undefined {
  if (exitCode !== 126 && exitCode !== 127) return undefined;
  const match = /^prlimit: (failed to execute .*)$/m.exec(stderr);
  return match?.[1];
}
