import { type GateContext, result } from '../context.js';
import type { GateResult } from '../report.js';

/**
 * stdout carries JSON-RPC frames only. Runs last: every line any stdio session of this check printed that
 * was not a JSON-RPC message is a failure (a stray log line corrupts the protocol for real clients).
 */
export async function hygieneGate(ctx: GateContext): Promise<GateResult> {
  if (ctx.target.kind !== 'stdio') return result('stdio-hygiene', 'SKIP', 'not a stdio server');
  if (ctx.stdioProbes.length === 0) await ctx.withSession(async (probe) => ctx.answersPing(probe));
  const stray = ctx.stdioProbes.flatMap((p) => p.stray);
  const stderrLines = ctx.stdioProbes.reduce((n, p) => n + p.stderr.length, 0);
  const evidence = {
    sessions: ctx.stdioProbes.length,
    strayStdoutLines: stray.length,
    firstStrayLines: stray.slice(0, 5),
    stderrLines,
    lastStderr: ctx.stdioProbes.at(-1)?.stderr.slice(-3) ?? [],
  };
  if (stray.length > 0) {
    return result(
      'stdio-hygiene',
      'FAIL',
      `${stray.length} non-JSON-RPC line${stray.length === 1 ? '' : 's'} on stdout, e.g. ${JSON.stringify(stray[0])}`,
      evidence,
    );
  }
  return result(
    'stdio-hygiene',
    'PASS',
    `only JSON-RPC on stdout across ${ctx.stdioProbes.length} sessions; ${stderrLines} stderr lines captured`,
    evidence,
  );
}
