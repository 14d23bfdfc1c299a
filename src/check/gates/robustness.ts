import { type GateContext, result } from '../context.js';
import { HttpProbe } from '../http-probe.js';
import type { JsonRpcMessage, Probe } from '../probe.js';
import type { GateResult } from '../report.js';
import { StdioProbe } from '../stdio-probe.js';

const BURST = 1000;

interface Step {
  name: string;
  ok: boolean;
  detail: string;
}

/**
 * Malformed input gets the JSON-RPC answer it deserves and the server stays up: bad JSON → -32700,
 * a wrong `jsonrpc` → -32600, an unknown method → -32601, bad params → -32602 (or an isError result);
 * a ping after each; then a burst of 1,000 pings, all answered.
 */
export async function robustnessGate(ctx: GateContext): Promise<GateResult> {
  return ctx.withSession(async (probe, init) => {
    const steps: Step[] = [];
    const half = Math.max(500, ctx.timeoutMs / 2);
    const expectCode = (name: string, answer: JsonRpcMessage | undefined, codes: number[]) => {
      const code = answer?.error?.code;
      steps.push({
        name,
        ok: code !== undefined && codes.includes(code),
        detail: answer ? describe(answer) : `no answer within ${half} ms`,
      });
    };
    let down = false;
    const stillUp = async (after: string) => {
      if (down) return false;
      down = !(probe.alive() && (await ctx.answersPing(probe)));
      if (down)
        steps.push({
          name: `ping after ${after}`,
          ok: false,
          detail: probe.alive() ? 'no answer' : 'the process exited',
        });
      return !down;
    };

    expectCode(
      'malformed JSON → -32700',
      await probe.raw('{"jsonrpc":"2.0","id":901,"method":"ping"', null, half),
      [-32700],
    );
    if (await stillUp('malformed JSON')) {
      const wrong = await probe.raw('{"jsonrpc":"1.0","id":902,"method":"ping"}', 902, half);
      expectCode('"jsonrpc": "1.0" → -32600', wrong, [-32600]);
    }
    if (await stillUp('a wrong jsonrpc version')) {
      expectCode(
        'unknown method → -32601',
        await probe.request('mcpkit/no-such-method', {}, ctx.timeoutMs),
        [-32601],
      );
    }
    const hasTools = Boolean((init.result?.capabilities as Record<string, unknown> | undefined)?.tools);
    if ((await stillUp('an unknown method')) && hasTools) {
      const answer = await probe.request(
        'tools/call',
        { name: 42, arguments: 'not an object' },
        ctx.timeoutMs,
      );
      const isError = (answer?.result as { isError?: unknown } | undefined)?.isError === true;
      steps.push({
        name: 'bad params → -32602 or isError',
        ok: answer?.error?.code === -32602 || isError,
        detail: answer ? describe(answer) : 'no answer',
      });
      await stillUp('bad params');
    }
    if (probe.alive()) {
      const answered = await burst(probe, ctx.timeoutMs * 2);
      steps.push({
        name: `burst of ${BURST} pings`,
        ok: answered === BURST,
        detail: `${answered}/${BURST} answered`,
      });
    }
    const failed = steps.filter((s) => !s.ok);
    const evidence = Object.fromEntries(steps.map((s) => [s.name, `${s.ok ? 'ok' : 'FAILED'}: ${s.detail}`]));
    if (failed.length > 0) {
      return result('robustness', 'FAIL', failed.map((s) => s.name).join('; '), evidence);
    }
    return result(
      'robustness',
      'PASS',
      `-32700, -32600, -32601, bad params handled; ${BURST}/${BURST} burst pings answered`,
      evidence,
    );
  });
}

/** Sends BURST pings at once and counts the answers. */
async function burst(probe: Probe, timeoutMs: number): Promise<number> {
  const ids = Array.from({ length: BURST }, (_, i) => 50_000 + i);
  let answers: (JsonRpcMessage | undefined)[];
  if (probe instanceof StdioProbe) {
    const waits = ids.map((id) => probe.expect(id, timeoutMs));
    probe.write(ids.map((id) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`).join(''));
    answers = await Promise.all(waits);
  } else if (probe instanceof HttpProbe) {
    answers = [];
    // 32 in flight, as a busy client would.
    for (let i = 0; i < ids.length; i += 32) {
      const batch = ids.slice(i, i + 32);
      answers.push(
        ...(await Promise.all(
          batch.map((id) => probe.raw(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }), id, timeoutMs)),
        )),
      );
    }
  } else {
    return 0;
  }
  return answers.filter((a) => a?.result !== undefined).length;
}

/** An answer in one short line: `error -32601: Method not found`, or the result. */
function describe(answer: JsonRpcMessage): string {
  if (answer.error) {
    const message = String(answer.error.message).replace(/\s+/g, ' ').slice(0, 80);
    return `error ${answer.error.code}: ${message}`;
  }
  return `result ${JSON.stringify(answer.result).slice(0, 80)}`;
}
