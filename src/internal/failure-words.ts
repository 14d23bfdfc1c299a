/**
 * How a process that died is described to a user: how it ended, and the line of its stderr that says why.
 * Shared by the client (a server that dies at start) and `mcpkit check` (a server that cannot be checked).
 */

/** How a process ended, in words: `exited with code 1`, `was killed by SIGKILL`. */
export function exitWords(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `was killed by ${signal}` : `exited with code ${code}`;
}

// `TypeError: …`, `Error [ERR_MODULE_NOT_FOUND]: …`, Python's `ModuleNotFoundError: …`, `panic: …`.
const ERROR_LINE =
  /^\s*(?:Uncaught\s+)?(?:[A-Z][\w.]*(?:Error|Exception)(?:\s*\[[^\]]*\])?:\s|(?:error|fatal|panic)\b[:[ ])/i;
// Stack frames and Node's version footer say where, not why.
const NOISE = /^\s*(?:at\s|\^+\s*$|Node\.js v\d|File "|Traceback \()|^\s*$/;

/**
 * The line of a dying server's stderr that says why: the last one that reads like an error (for Node,
 * the `Error:` line under the code frame), else the last line that is not a stack frame.
 */
export function stderrReason(lines: readonly string[]): string | undefined {
  const errorLine = lines.findLast((line) => ERROR_LINE.test(line));
  const line = errorLine ?? lines.findLast((line) => !NOISE.test(line));
  return line?.trim();
}

/**
 * A spawn that failed, in words: ENOENT is a command that is not installed or not on PATH (or, with a
 * `cwd`, a directory that does not exist), EACCES one that is not executable.
 */
export function spawnProblem(command: string, error: NodeJS.ErrnoException, cwd?: string): string {
  const start = `cannot start "${command}"${cwd ? ` in ${cwd}` : ''}`;
  if (error.code === 'ENOENT')
    return `${start}: not found (is it installed and on PATH?${cwd ? ' does the directory exist?' : ''})`;
  if (error.code === 'EACCES') return `${start}: permission denied (not executable)`;
  return `${start}: ${error.message}`;
}
