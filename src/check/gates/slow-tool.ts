import { setTimeout as sleep } from 'node:timers/promises';
import { type GateContext, result } from '../context.js';
import type { GateResult } from '../report.js';

const NEED = 'name a long-running tool with --slow-tool NAME [--args JSON]';

/** The slow tool reports progress when the request carries a progress token. */
export async function progressGate(ctx: GateContext): Promise<GateResult> {
  const slow = ctx.slowTool;
  if (!slow) return result('progress', 'SKIP', NEED);
  return ctx.withSession(async (probe) => {
    const token = 'mcpkit-check-progress';
    const answer = await probe.request(
      'tools/call',
      { name: slow.name, arguments: slow.args, _meta: { progressToken: token } },
      ctx.timeoutMs * 4,
    );
    const updates = probe.notifications.filter(
      (n) => n.method === 'notifications/progress' && n.params?.progressToken === token,
    );
    const evidence = {
      tool: slow.name,
      progressNotifications: updates.length,
      response: answer ?? 'no answer',
    };
    if (!answer) return result('progress', 'FAIL', `${slow.name} did not answer`, evidence);
    if (updates.length === 0)
      return result('progress', 'FAIL', `${slow.name} sent no progress for a progress token`, evidence);
    return result('progress', 'PASS', `${updates.length} progress notifications from ${slow.name}`, evidence);
  });
}

/**
 * `notifications/cancelled` stops the work: after it, no response comes for the request (the spec asks
 * receivers not to answer a cancelled request) and the server still answers ping.
 */
export async function cancellationGate(ctx: GateContext): Promise<GateResult> {
  const slow = ctx.slowTool;
  if (!slow) return result('cancellation', 'SKIP', NEED);
  return ctx.withSession(async (probe) => {
    const id = 'mcpkit-check-cancel';
    let answered: unknown;
    const pending = probe
      .raw(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: slow.name, arguments: slow.args },
        }),
        id,
        ctx.timeoutMs * 2,
      )
      .then((answer) => {
        answered = answer;
      });
    await sleep(200);
    if (answered) {
      return result('cancellation', 'SKIP', `${slow.name} finished within 200 ms; name a slower tool`, {
        response: answered,
      });
    }
    await probe.notify('notifications/cancelled', { requestId: id, reason: 'mcpkit check' });
    await pending;
    const alive = probe.alive() && (await ctx.answersPing(probe));
    const evidence = { tool: slow.name, responseAfterCancel: answered ?? null, answersPingAfter: alive };
    if (answered)
      return result('cancellation', 'FAIL', `${slow.name} answered after notifications/cancelled`, evidence);
    if (!alive)
      return result('cancellation', 'FAIL', 'the server stopped answering after a cancellation', evidence);
    return result(
      'cancellation',
      'PASS',
      `no response after cancelling ${slow.name}; still answers ping`,
      evidence,
    );
  });
}
