import type { ProgressUpdate } from '../client/index.js';
import type { CliIO } from './io.js';

/**
 * Progress on stderr: a bar redrawn in place on a terminal, one line per update otherwise (logs stay
 * readable). `done()` clears the bar.
 */
export function createProgressReporter(io: CliIO): { update(u: ProgressUpdate): void; done(): void } {
  let drawn = false;
  return {
    update(u) {
      const total = u.total !== undefined && u.total > 0 ? u.total : undefined;
      const count = total ? `${u.progress}/${total}` : String(u.progress);
      const message = u.message ? ` ${u.message}` : '';
      if (!io.stderrIsTTY) {
        io.err(`progress: ${count}${message}\n`);
        return;
      }
      const width = 24;
      const filled = total ? Math.min(width, Math.round((u.progress / total) * width)) : 0;
      const bar = total ? `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ` : '';
      io.err(`\r\x1b[2K${bar}${count}${message}`);
      drawn = true;
    },
    done() {
      if (drawn) io.err('\r\x1b[2K');
      drawn = false;
    },
  };
}
