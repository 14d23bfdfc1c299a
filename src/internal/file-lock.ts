import { rmdirSync } from 'node:fs';
import { mkdir, rmdir, stat, utimes } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A lock between processes: the directory `<target>.lock`, made atomically (`mkdir`), its mtime refreshed
 * while held, taken over once older than `staleMs` (its holder died). The algorithm of proper-lockfile,
 * which mcpkit used before; that package hooks SIGINT/SIGTERM/SIGHUP through `signal-exit` as soon as it
 * is loaded, and `signal-exit` acts only while its listeners are alone, which made a starting gateway
 * ignore signals (issue 34). This one hooks no signal: locks still held at exit are removed by a plain
 * `exit` listener, and `signals.ts` always ends the process by `process.exit`.
 */
export interface FileLockOptions {
  /** A lock whose mtime is older than this belongs to a process that died holding it. */
  staleMs: number;
  /** How long to keep trying before giving up. */
  timeoutMs: number;
}

const held = new Set<string>();
let exitHook = false;

/** Runs `work` while holding `<target>.lock`; throws when the lock stays taken past `timeoutMs`. */
export async function withFileLock<T>(
  target: string,
  options: FileLockOptions,
  work: () => Promise<T>,
): Promise<T> {
  const path = `${target}.lock`;
  await acquire(path, options);
  // Half the stale time: a holder that is alive is never taken for a dead one.
  const refresh = setInterval(() => {
    const now = new Date();
    utimes(path, now, now).catch(() => undefined);
  }, options.staleMs / 2);
  refresh.unref();
  try {
    return await work();
  } finally {
    clearInterval(refresh);
    held.delete(path);
    await rmdir(path).catch(() => undefined);
  }
}

async function acquire(path: string, options: FileLockOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (let wait = 10; ; wait = Math.min(Math.ceil(wait * 1.3), 250)) {
    try {
      await mkdir(path);
      hold(path);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const since = await stat(path).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0, // released meanwhile: try again at once
    );
    if (since > options.staleMs) {
      // Its holder died: whoever removes it first takes it (a racing taker finds it made again).
      await rmdir(path).catch(() => undefined);
      continue;
    }
    if (Date.now() >= deadline)
      throw new Error(`${path} is held by another process (for ${Math.round(since / 1000)} s)`);
    await sleep(wait);
  }
}

function hold(path: string): void {
  held.add(path);
  if (exitHook) return;
  exitHook = true;
  process.on('exit', () => {
    for (const lock of held) {
      try {
        rmdirSync(lock);
      } catch {
        // Gone already.
      }
    }
  });
}
