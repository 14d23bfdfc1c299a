import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type CallToolResult, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/** A server-to-client request a 2025 upstream sends mid-call, as the gateway can forward it. */
export type AskedMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/** Puts an upstream's request to the client of the call; resolves with the client's answer. */
export type Asker = (method: AskedMethod, params: Record<string, unknown>) => Promise<unknown>;

/** Limits of {@link InputFlows}. */
export interface InputFlowOptions {
  /** How long the gateway waits for a client to come back with its answers; default 5 min. */
  roundTimeoutMs?: number;
}

interface Asked {
  key: string;
  method: AskedMethod;
  params: Record<string, unknown>;
  answer(result: unknown): void;
  refuse(error: Error): void;
}

interface Flow {
  id: string;
  tool: string;
  round: number;
  asked: Asked[];
  /** Called when the upstream asks something (or the call ends): the waiting round looks again. */
  wake(): void;
  outcome: Promise<{ result: CallToolResult } | { error: unknown }>;
  done: boolean;
  controller: AbortController;
  timer?: NodeJS.Timeout | undefined;
  keys: number;
}

const CAPABILITY: Record<AskedMethod, string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** How long a round waits for more requests after the last one came, and at most in all. */
const GATHER_QUIET_MS = 50;
const GATHER_MAX_MS = 500;

const badState = () => new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState');

/**
 * The gateway's bridge from a 2025 upstream's mid-call requests to a 2026-07-28 client, which cannot be
 * asked anything: the call runs on, each request the upstream sends (elicitation, sampling, roots) becomes
 * an `input_required` result with a `requestState` signed with a per-process key (HMAC-SHA256 over flow,
 * round and tool), and the client's retry with `inputResponses` answers the waiting upstream — round after
 * round, until the upstream's own result comes. A state that fails verification, belongs to an old round or
 * to another tool is refused (-32602); a client that does not come back in time, or goes away while a
 * round waits, cancels the upstream call.
 */
export class InputFlows {
  private readonly flows = new Map<string, Flow>();
  private readonly key = randomBytes(32);
  private readonly roundTimeoutMs: number;

  constructor(options: InputFlowOptions = {}) {
    this.roundTimeoutMs = options.roundTimeoutMs ?? 5 * 60_000;
  }

  /** Calls in progress waiting for their client to answer. */
  get size(): number {
    return this.flows.size;
  }

  /**
   * Starts a call (`run` gets the asker to route the upstream's requests to, and the signal that stops
   * it); resolves with its result, or with `input_required` when the upstream asks first.
   */
  async start(
    tool: string,
    capabilities: Record<string, unknown> | undefined,
    run: (ask: Asker, signal: AbortSignal) => Promise<CallToolResult>,
    signal?: AbortSignal,
  ): Promise<CallToolResult> {
    const controller = new AbortController();
    const flow: Flow = {
      id: randomBytes(12).toString('base64url'),
      tool,
      round: 0,
      asked: [],
      wake: () => undefined,
      outcome: Promise.resolve({ error: undefined }),
      done: false,
      controller,
      keys: 0,
    };
    const ask: Asker = (method, params) =>
      new Promise((resolve, reject) => {
        if (flow.done) return reject(new Error('mcpkit gateway: the call is over'));
        if (capabilities?.[CAPABILITY[method]] === undefined)
          return reject(
            new Error(`mcpkit gateway: the client does not support ${CAPABILITY[method]}; refused`),
          );
        const key = `${CAPABILITY[method]}_${++flow.keys}`;
        flow.asked.push({ key, method, params, answer: resolve, refuse: reject });
        flow.wake();
      });
    flow.outcome = run(ask, controller.signal).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    this.flows.set(flow.id, flow);
    return this.next(flow, signal);
  }

  /** A client's retry: verifies its state, answers what the upstream asked, and waits for what comes next. */
  async resume(
    tool: string,
    requestState: string,
    responses: Record<string, unknown> | undefined,
    signal?: AbortSignal,
  ): Promise<CallToolResult> {
    const flow = this.verify(tool, requestState);
    const missing = flow.asked.filter((asked) => responses?.[asked.key] === undefined);
    if (missing.length === flow.asked.length && flow.asked.length > 0) {
      // Nothing answered: ask again, as SEP-2322 recommends (the same round, the same state).
      return this.inputRequired(flow);
    }
    for (const asked of flow.asked) {
      const answer = responses?.[asked.key];
      if (answer !== undefined) asked.answer(answer);
    }
    flow.asked = missing;
    flow.round++;
    if (flow.timer) clearTimeout(flow.timer);
    flow.timer = undefined;
    return this.next(flow, signal);
  }

  /** Cancels every waiting call (the gateway is closing). */
  closeAll(): void {
    for (const flow of [...this.flows.values()]) this.end(flow, 'the gateway is closing');
  }

  /** Waits for the upstream's next request(s) or its result; a caller that goes away cancels the call. */
  private async next(flow: Flow, signal: AbortSignal | undefined): Promise<CallToolResult> {
    const asked = new Promise<void>((resolve) => {
      flow.wake = resolve;
      if (flow.asked.length > 0) resolve();
    });
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<void>((resolve) => {
      onAbort = () => resolve();
      if (signal?.aborted) resolve();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const first = await Promise.race([
        flow.outcome.then((outcome) => ({ outcome })),
        asked.then(() => ({ asked: true as const })),
        aborted.then(() => ({ aborted: true as const })),
      ]);
      if ('aborted' in first) {
        this.end(flow, 'the client went away');
        throw new ProtocolError(ProtocolErrorCode.InternalError, 'mcpkit gateway: the call was cancelled');
      }
      if ('outcome' in first) {
        this.finish(flow);
        if ('error' in first.outcome) throw first.outcome.error;
        return first.outcome.result;
      }
      await this.gathered(flow);
      flow.timer = setTimeout(() => this.end(flow, 'the client did not answer in time'), this.roundTimeoutMs);
      flow.timer.unref();
      return this.inputRequired(flow);
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Requests an upstream sends together (`Promise.all`) arrive one frame after another: the round takes
   * every one that comes within a short quiet window of the last, up to a bound.
   */
  private async gathered(flow: Flow): Promise<void> {
    const until = Date.now() + GATHER_MAX_MS;
    let seen = -1;
    while (seen !== flow.asked.length && Date.now() < until && !flow.done) {
      seen = flow.asked.length;
      await new Promise((resolve) => setTimeout(resolve, GATHER_QUIET_MS));
    }
  }

  private inputRequired(flow: Flow): CallToolResult {
    const inputRequests = Object.fromEntries(
      flow.asked.map((asked) => [asked.key, { method: asked.method, params: asked.params }]),
    );
    const requestState = this.sign(flow);
    return { resultType: 'input_required', inputRequests, requestState } as unknown as CallToolResult;
  }

  private sign(flow: Flow): string {
    const body = `${flow.id}.${flow.round}`;
    return `${body}.${this.mac(body, flow.tool)}`;
  }

  private mac(body: string, tool: string): string {
    return createHmac('sha256', this.key).update(`${body}\0${tool}`).digest('base64url');
  }

  private verify(tool: string, state: string): Flow {
    const parts = state.split('.');
    if (parts.length !== 3) throw badState();
    const [id, round, mac] = parts as [string, string, string];
    const expected = Buffer.from(this.mac(`${id}.${round}`, tool));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw badState();
    const flow = this.flows.get(id);
    if (!flow || flow.done || String(flow.round) !== round) throw badState();
    return flow;
  }

  private finish(flow: Flow): void {
    flow.done = true;
    if (flow.timer) clearTimeout(flow.timer);
    this.flows.delete(flow.id);
  }

  private end(flow: Flow, why: string): void {
    if (flow.done) return;
    this.finish(flow);
    for (const asked of flow.asked) asked.refuse(new Error(`mcpkit gateway: ${why}`));
    flow.controller.abort(why);
  }
}
