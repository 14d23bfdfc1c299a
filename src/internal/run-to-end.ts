import { spawnGroup, stopGroup } from './process-group.js';

/** How a short command ended: its exit code (null when killed or not started) and its output. */
export interface CommandOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The spawn itself failed (ENOENT…). */
  error?: NodeJS.ErrnoException;
}

/**
 * Runs a short command to its end in its own process group (no shell), and gives its output; for probes
 * such as "does bubblewrap work here" and one-off helpers, never for a server. `signal` stops it at any
 * moment.
 */
export function runToEnd(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  cwd?: string,
  signal?: AbortSignal,
): Promise<CommandOutcome> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve({
        code: null,
        stdout: '',
        stderr: '',
        error: Object.assign(new Error('stopped'), { code: 'ABORT_ERR' }),
      });
      return;
    }
    const child = spawnGroup(command, args, { env, ...(cwd === undefined ? {} : { cwd }) });
    // Aborted: the whole group goes (npm's own children too), and the outcome says it was stopped.
    const stop = () => void stopGroup(child, { stdinGraceMs: 0 });
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', stop, { once: true });
    child.once('close', () => signal?.removeEventListener('abort', stop));
    let stdout = '';
    let stderr = '';
    child.stdin.end();
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.once('error', (error) => resolve({ code: null, stdout, stderr, error }));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
