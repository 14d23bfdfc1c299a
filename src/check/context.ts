import { HttpProbe } from './http-probe.js';
import { handshake, type JsonRpcMessage, LEGACY_VERSIONS, type Probe } from './probe.js';
import type { GateResult } from './report.js';
import { StdioProbe, type StdioTarget } from './stdio-probe.js';

/** A server to check: a command (stdio) or a URL (Streamable HTTP). */
export type CheckTarget =
  | ({ kind: 'stdio' } & Omit<StdioTarget, 'parentEnv'>)
  | { kind: 'http'; url: string; headers?: Record<string, string> };

/** The slow tool used by the progress and cancellation gates. */
export interface SlowTool {
  name: string;
  args: Record<string, unknown>;
}

/** What every gate gets: how to open connections, the limits, and the probes opened so far. */
export class GateContext {
  /** Every stdio probe opened during the check (the hygiene gate reads their stdout). */
  readonly stdioProbes: StdioProbe[] = [];

  constructor(
    readonly target: CheckTarget,
    readonly timeoutMs: number,
    readonly parentEnv: Readonly<Record<string, string | undefined>>,
    readonly slowTool: SlowTool | undefined,
  ) {}

  /** A fresh connection: a new process for stdio, a new session for HTTP. */
  async open(): Promise<Probe> {
    if (this.target.kind === 'http') return new HttpProbe(this.target.url, this.target.headers ?? {});
    const { kind: _kind, ...stdio } = this.target;
    const probe = await StdioProbe.start({ ...stdio, parentEnv: this.parentEnv });
    this.stdioProbes.push(probe);
    return probe;
  }

  /** A fresh connection after a successful 2025 handshake (newest version offered). */
  async session(): Promise<{ probe: Probe; init: JsonRpcMessage }> {
    const probe = await this.open();
    const init = await handshake(probe, LEGACY_VERSIONS[0], this.timeoutMs);
    if (!init?.result) {
      await probe.close();
      throw new GateAbort(
        init ? `initialize failed: ${JSON.stringify(init.error)}` : 'no answer to initialize',
      );
    }
    return { probe, init };
  }

  /** Runs `use` on a fresh session and always closes it. */
  async withSession<T>(use: (probe: Probe, init: JsonRpcMessage) => Promise<T>): Promise<T> {
    const { probe, init } = await this.session();
    try {
      return await use(probe, init);
    } finally {
      await probe.close();
    }
  }

  /** Does the server still answer ping on this connection? */
  async answersPing(probe: Probe): Promise<boolean> {
    const answer = await probe.request('ping', undefined, this.timeoutMs);
    return answer?.result !== undefined;
  }
}

/** Thrown inside a gate when it cannot go on; the runner turns it into a FAIL with the message. */
export class GateAbort extends Error {}

/** Builds a result. */
export function result(
  gate: GateResult['gate'],
  status: GateResult['status'],
  summary: string,
  evidence: Record<string, unknown> = {},
): GateResult {
  return { gate, status, summary, evidence };
}

/** The median of some numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Milliseconds with one decimal. */
export const ms = (value: number) => `${value.toFixed(1)} ms`;
