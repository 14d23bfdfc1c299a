import { McpkitError } from '../errors/index.js';
import { exitWords, spawnProblem, stderrReason } from '../internal/failure-words.js';
import { HttpProbe } from './http-probe.js';
import { handshake, initializeParams, type JsonRpcMessage, LEGACY_VERSIONS, type Probe } from './probe.js';
import type { GateResult } from './report.js';
import { StdioProbe, type StdioTarget } from './stdio-probe.js';
import { networkProblem, notMcp, unreachable } from './unreachable.js';

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
  /** The preflight's session, handed to the first gate that asks for one. */
  private warm: { probe: Probe; init: JsonRpcMessage } | undefined;

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

  /**
   * One handshake before any gate, so a server that cannot be checked at all is reported at once, in one
   * line, with the cause: a command that does not start, a process that exits before answering (its exit
   * code and the stderr line that says why), a URL that refuses connections or is not MCP. Throws
   * SERVER_FAILED then. A server that stays silent is reported too;
   * one that answers (even with an error) is left to the gates.
   */
  async preflight(label: string, startupTimeoutMs: number): Promise<void> {
    if (this.target.kind === 'http') {
      const probe = new HttpProbe(this.target.url, this.target.headers ?? {});
      const init = {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: initializeParams(LEGACY_VERSIONS[0]),
      };
      const exchange = await probe.post(JSON.stringify(init), {}, this.timeoutMs);
      if (exchange.status === 0)
        throw unreachable(
          `${this.target.url}: ${networkProblem(this.target.url, exchange.error)}`,
          exchange.error,
        );
      const problem = notMcp(exchange);
      if (problem) throw unreachable(`${this.target.url}: ${problem}`);
      probe.sessionId = exchange.headers.get('mcp-session-id') ?? undefined;
      await probe.close();
      return;
    }
    let probe: StdioProbe;
    try {
      probe = (await this.open()) as StdioProbe;
    } catch (error) {
      throw unreachable(spawnProblem(this.target.command, error as NodeJS.ErrnoException), error);
    }
    // A first start may pay for a download (`npx -y`) or a cold cache: more time than one request.
    const budgetMs = startupTimeoutMs;
    const init = await handshake(probe, LEGACY_VERSIONS[0], budgetMs);
    if (init?.result) {
      this.warm = { probe, init };
      return;
    }
    if (init) {
      await probe.close();
      return;
    }
    if (probe.alive()) {
      // Alive but silent: every gate would wait for the same answer. Say so once, with the likely cause.
      const stray = probe.stray[0];
      const line = stderrReason(probe.stderr);
      await probe.close();
      throw unreachable(
        `server "${label}" did not answer initialize within ${budgetMs / 1000} s` +
          (stray
            ? `; its stdout carried a line that is not JSON-RPC: ${JSON.stringify(stray.slice(0, 80))} (stdout must carry only protocol frames; log to stderr)`
            : line
              ? `; its stderr says: ${line}`
              : ''),
      );
    }
    // Its stderr is read to the end on close; a grandchild holding the pipe open must not hold us up.
    const ended = await Promise.race([
      probe.ended(),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 1000).unref()),
    ]);
    const how = ended ? exitWords(ended.code, ended.signal) : 'exited';
    const line = stderrReason(probe.stderr);
    await probe.close();
    throw unreachable(
      `server "${label}" ${how} before answering initialize${line ? `: ${line}` : ' (nothing on stderr)'}`,
    );
  }

  /** Closes what the preflight left open (when no gate took it). */
  async dispose(): Promise<void> {
    await this.warm?.probe.close();
    this.warm = undefined;
  }

  /** A fresh connection after a successful 2025 handshake (newest version offered). */
  async session(): Promise<{ probe: Probe; init: JsonRpcMessage }> {
    const warm = this.warm;
    this.warm = undefined;
    if (warm) return warm;
    const probe = await this.open();
    const init = await handshake(probe, LEGACY_VERSIONS[0], this.timeoutMs);
    if (!init?.result) {
      await probe.close();
      // The gate that asked cannot go on; the runner turns this into its FAIL with the message.
      throw new McpkitError(
        'REQUEST_FAILED',
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
