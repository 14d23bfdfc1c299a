import { maskSecretsIn } from '../../../config/index.js';
import type { CallObserver, CallRecord } from '../call-events.js';

/** A tool call as the dashboard shows it. */
export interface CallView {
  id: number;
  time: string;
  name: string;
  server?: string;
  client?: string;
  profile?: string;
  /** `running` until it ends. */
  outcome: string;
  durationMs?: number;
  error?: string;
  /** Only when the dashboard was asked to show them (`--dashboard-payloads`), with secrets masked. */
  args?: unknown;
  result?: unknown;
}

/** The largest argument or result text a view carries (a page need not hold a huge result). */
const MAX_PAYLOAD_CHARS = 4000;

/**
 * The dashboard's view of tool calls: the last `size` of them, and each start and end passed to the live
 * pages. Arguments and results are kept only with `payloads` on, masked (`maskSecretsIn`) and cut short.
 */
export class CallFeed implements CallObserver {
  private readonly calls: CallView[] = [];
  private readonly listeners = new Set<(call: CallView) => void>();

  constructor(
    private readonly payloads: boolean,
    private readonly size = 200,
  ) {}

  started(call: CallRecord): void {
    this.publish(this.view(call, false));
  }

  ended(call: CallRecord): void {
    this.publish(this.view(call, true));
  }

  /** The kept calls, newest last (a call still running shows as `running`). */
  recent(): CallView[] {
    return [...this.calls];
  }

  /** Calls `listener` with each call's start and end until the returned function is called. */
  listen(listener: (call: CallView) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private publish(view: CallView): void {
    const at = this.calls.findIndex((c) => c.id === view.id);
    if (at === -1) {
      this.calls.push(view);
      if (this.calls.length > this.size) this.calls.shift();
    } else this.calls[at] = view;
    for (const listener of this.listeners) listener(view);
  }

  private view(call: CallRecord, done: boolean): CallView {
    const view: CallView = {
      id: call.id,
      time: call.time,
      name: call.name,
      outcome: done ? (call.outcome ?? 'failed') : 'running',
    };
    if (call.server !== undefined) view.server = call.server;
    if (call.client !== undefined) view.client = call.client;
    if (call.profile !== undefined) view.profile = call.profile;
    if (done && call.durationMs !== undefined) view.durationMs = Math.round(call.durationMs * 10) / 10;
    if (done && call.error !== undefined && this.payloads) view.error = call.error;
    if (this.payloads) {
      view.args = shown(call.args);
      if (done && call.result) view.result = shown(call.result.structuredContent ?? call.result.content);
    }
    return view;
  }
}

/** A payload masked, and as text past the cap. */
function shown(value: unknown): unknown {
  const masked = maskSecretsIn(value);
  const text = JSON.stringify(masked) ?? '';
  return text.length > MAX_PAYLOAD_CHARS
    ? `${text.slice(0, MAX_PAYLOAD_CHARS)}… (${text.length} characters)`
    : masked;
}
