import { killAllGroups } from './process-group.js';

/**
 * The one owner of the process's SIGINT, SIGTERM and SIGHUP (and, for a stdio server, of the client
 * leaving: stdin's end). Installed once by the CLI (`run.ts`); nothing else listens to these signals.
 *
 * A stop runs the **stop steps** registered now ({@link onStop}: a server ending its serving, a command
 * aborting its calls), each of which makes the command's own work return, so `run.ts` turns the stop into
 * the exit code (130 SIGINT, 143 SIGTERM, 129 SIGHUP, 0 the client left). When no step is registered
 * (a gateway still starting its upstreams, a command past its own shutdown, one with nothing to end),
 * or at a second signal, or when the steps' budget runs out, the stop is **hard**: every child process
 * group is SIGKILLed at once and the process exits with that code. So no phase ever waits for another
 * listener or for a timeout it did not choose (issue 34: two listeners each stepped aside for the other
 * and a starting gateway ignored SIGTERM for its whole `--ready-wait`).
 *
 * A library user's process keeps its own signals: the Runtime installs nothing, and if that process dies
 * by a signal its children are killed by the reaper (`reaper.ts`).
 */
export type StopCause = 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'eof';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** 128 + the signal's number, as shells report a process ended by it; the client leaving is a normal end. */
const EXIT_CODES: Record<StopCause, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143, eof: 0 };

/** How long a stop's steps may take (beyond what a step asks for, e.g. an HTTP drain) before it turns hard. */
export const SHUTDOWN_BUDGET_MS = 1000;
/** The budget's margin for what follows the steps (closing pipes, the last writes) on a loaded machine. */
const HARD_STOP_MARGIN_MS = 1000;

interface Step {
  run: (cause: StopCause) => void;
  /** Extra time this step needs beyond the budget (an HTTP drain). */
  graceMs: number;
}

const steps = new Set<Step>();
let installed = false;
let stoppedBy: StopCause | undefined;

/** Installs the handlers (once). Idempotent; the CLI calls it before any command runs. */
export function ownSignals(): void {
  if (installed) return;
  installed = true;
  for (const signal of SIGNALS) process.on(signal, () => stop(signal));
}

/**
 * Registers what a stop must do while the returned function has not been called. `run` must make the
 * command's work end (resolve a wait, abort a controller) and return at once; the work's own `finally`
 * does the shutdown, within {@link SHUTDOWN_BUDGET_MS} + `graceMs`.
 */
export function onStop(run: (cause: StopCause) => void, graceMs = 0): () => void {
  ownSignals();
  const step: Step = { run, graceMs };
  steps.add(step);
  return () => {
    steps.delete(step);
  };
}

/** What stopped this process, if anything did (for the exit code). */
export function stopCause(): StopCause | undefined {
  return stoppedBy;
}

/** The exit status for a stop. */
export function exitCodeOf(cause: StopCause): number {
  return EXIT_CODES[cause];
}

/**
 * A stop: the first runs the registered steps (or is hard when there are none); another during the
 * shutdown is hard. The client leaving (`eof`) after a signal changes nothing.
 */
export function stop(cause: StopCause): void {
  if (stoppedBy !== undefined) {
    if (cause !== 'eof') hardStop(cause);
    return;
  }
  stoppedBy = cause;
  const now = [...steps];
  if (now.length === 0) hardStop(cause);
  const grace = Math.max(...now.map((s) => s.graceMs));
  // The backstop: unref'd, so it never keeps a finished process alive.
  const budget = SHUTDOWN_BUDGET_MS + grace + HARD_STOP_MARGIN_MS;
  setTimeout(() => {
    // Worth a line: a shutdown that overran is a bug or a hung server (the line tests look for, too).
    process.stderr.write(
      `mcpkit: still shutting down after ${budget / 1000} s; stopping every process now\n`,
    );
    hardStop(cause);
  }, budget).unref();
  for (const step of now) step.run(cause);
}

/** Every child group SIGKILLed, then the exit; the `exit` hooks (spill files, the record, locks) still run. */
function hardStop(cause: StopCause): never {
  killAllGroups();
  // The one exit below the CLI's entry: the command's work cannot end in time by itself.
  process.exit(EXIT_CODES[cause]);
}
