import { StringDecoder } from 'node:string_decoder';
import { type GroupChild, groupAlive, signalGroup, spawnGroup } from '../internal/process-group.js';
import { prlimitExecFailure, type ResourceLimits, withResourceLimits } from '../internal/resource-limits.js';

/** How to run one program call. */
export interface RunOptions {
  program: string;
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL to the group, on timeout or cancel. */
  graceMs: number;
  /** stdout bytes kept; the rest is counted and dropped. */
  maxOutput: number;
  /** Memory and CPU per process (applied with prlimit). */
  limits?: ResourceLimits;
  signal?: AbortSignal;
  /** Each complete stdout line as it arrives (for progress). */
  onLine?: (line: string) => void;
}

/** What a call produced. */
export interface RunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout bytes dropped past maxOutput. */
  dropped: number;
  timedOut: boolean;
  cancelled: boolean;
  /** Set when the program could not be started at all. */
  spawnError?: string;
}

const STDERR_KEEP = 64 * 1024;

/**
 * Runs a program in its own process group with the bridge's limits. A timeout or an abort sends SIGTERM to
 * the whole group and SIGKILL after the grace period; the result always comes back (partial output
 * included), never a throw.
 */
export function runProgram(options: RunOptions): Promise<RunResult> {
  return new Promise((resolve) => {
    let child: GroupChild;
    const result: RunResult = {
      exitCode: null,
      signal: null,
      stdout: '',
      stderr: '',
      dropped: 0,
      timedOut: false,
      cancelled: false,
    };
    try {
      const { command, args } = withResourceLimits(options.program, options.argv, options.limits);
      child = spawnGroup(command, args, { cwd: options.cwd, env: options.env });
    } catch (error) {
      resolve({ ...result, spawnError: (error as Error).message });
      return;
    }
    child.stdin.end();
    child.stdin.on('error', () => undefined);
    const out: Buffer[] = [];
    let kept = 0;
    const lines = new StringDecoder('utf8');
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const room = options.maxOutput - kept;
      if (room > 0) {
        const piece = chunk.length <= room ? chunk : chunk.subarray(0, room);
        out.push(piece);
        kept += piece.length;
      }
      result.dropped += Math.max(0, chunk.length - Math.max(0, room));
      if (options.onLine) {
        partial += lines.write(chunk);
        const split = partial.split('\n');
        partial = split.pop() ?? '';
        for (const line of split) if (line.trim() !== '') options.onLine(line.replace(/\r$/, ''));
      }
    });
    let err = Buffer.alloc(0);
    child.stderr.on('data', (chunk: Buffer) => {
      err = Buffer.concat([err, chunk]);
      if (err.length > STDERR_KEEP) err = err.subarray(err.length - STDERR_KEEP);
    });

    let killTimer: NodeJS.Timeout | undefined;
    const terminate = () => {
      if (killTimer) return;
      signalGroup(child, 'SIGTERM');
      killTimer = setTimeout(() => {
        if (groupAlive(child)) signalGroup(child, 'SIGKILL');
      }, options.graceMs);
    };
    const timer = setTimeout(() => {
      result.timedOut = true;
      terminate();
    }, options.timeoutMs);
    const onAbort = () => {
      result.cancelled = true;
      terminate();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();

    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (options.onLine) {
        const rest = partial + lines.end();
        if (rest.trim() !== '') options.onLine(rest);
      }
      // Invalid UTF-8 becomes U+FFFD: the client always gets text.
      result.stdout = Buffer.concat(out).toString('utf8');
      result.stderr = err.toString('utf8');
      // Under prlimit a program that is not there is prlimit's exit 127, not a spawn error: say the same.
      const execFailure = options.limits ? prlimitExecFailure(result.exitCode, result.stderr) : undefined;
      if (execFailure !== undefined) result.spawnError = execFailure;
      // The group may outlive its leader (a daemonised grandchild): it goes with the call.
      if (groupAlive(child)) {
        signalGroup(child, 'SIGTERM');
        setTimeout(() => groupAlive(child) && signalGroup(child, 'SIGKILL'), options.graceMs).unref();
      } else if (killTimer) clearTimeout(killTimer);
      resolve(result);
    };
    child.once('error', (error) => {
      result.spawnError = error.message;
      finish();
    });
    child.once('exit', (code, signal) => {
      result.exitCode = code;
      result.signal = signal;
      // Give the pipes a moment to drain; a grandchild holding them open must not hold the call.
      setTimeout(finish, 50).unref();
    });
    child.once('close', finish);
  });
}
