import type { ServerContext } from '@modelcontextprotocol/server';
import { progressSender } from '../serve/progress.js';
import type { ToolContract } from './contract.js';

/** Progress a module tool reports. */
export interface ModuleProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** How a call reports progress; all inert when the request carried no progress token. */
export interface ProgressReporter {
  /** For program tools: each stdout line. Undefined when there is no token. */
  onLine?: (line: string) => void;
  /** For module tools. */
  report(update: ModuleProgress): void;
  /** Resolves once every notification was handed to the transport (before the final response). */
  flush(): Promise<void>;
}

/**
 * One `notifications/progress` per non-empty stdout line (`lines`, the default) or per match of the
 * contract's pattern (named groups progress, total, message) — only when the request carries
 * `_meta.progressToken`.
 */
export function progressReporter(spec: ToolContract['progress'], ctx: ServerContext): ProgressReporter {
  const notify = progressSender(ctx);
  if (!notify) return { report: () => undefined, flush: async () => undefined };
  const sent: Promise<void>[] = [];
  let count = 0;
  const send = (update: ModuleProgress) => {
    sent.push(notify(update));
  };
  const pattern = spec && spec !== 'lines' ? new RegExp(spec.pattern) : undefined;
  const onLine = (line: string) => {
    count++;
    if (!pattern) {
      send({ progress: count, message: line });
      return;
    }
    const match = pattern.exec(line);
    if (!match) return;
    const groups = match.groups ?? {};
    const update: ModuleProgress = {
      progress: groups.progress !== undefined ? Number(groups.progress) : count,
    };
    if (groups.total !== undefined) update.total = Number(groups.total);
    if (groups.message !== undefined) update.message = groups.message;
    send(update);
  };
  return { onLine, report: send, flush: async () => void (await Promise.all(sent)) };
}
