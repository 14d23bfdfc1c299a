import { errorMessage } from '../internal/error-message.js';
import { type CheckTarget, GateContext, result, type SlowTool } from './context.js';
import { generationsGate } from './gates/generations.js';
import { handshakeGate } from './gates/handshake.js';
import { httpSecurityGate } from './gates/http-security.js';
import { hygieneGate } from './gates/hygiene.js';
import { promptsGate, resourcesGate } from './gates/listings.js';
import { robustnessGate } from './gates/robustness.js';
import { cancellationGate, progressGate } from './gates/slow-tool.js';
import { toolsGate } from './gates/tools.js';
import { type CheckReport, GATE_IDS, type GateId, type GateResult } from './report.js';

/** Options for {@link runCheck}. */
export interface CheckOptions {
  target: CheckTarget;
  /** How the report names the server. */
  label: string;
  /** Run only these gates. */
  only?: readonly GateId[];
  /** Per request; default 5 s. */
  timeoutMs?: number;
  /** For the first start's `initialize` answer (it may pay for a download); default the larger of 15 s and timeoutMs. */
  startupTimeoutMs?: number;
  slowTool?: SlowTool;
  /** The environment stdio servers inherit from (the safe list, as the runtime passes). */
  env?: Readonly<Record<string, string | undefined>>;
}

const GATES: Record<GateId, (ctx: GateContext) => Promise<GateResult>> = {
  handshake: handshakeGate,
  generations: generationsGate,
  tools: toolsGate,
  robustness: robustnessGate,
  progress: progressGate,
  cancellation: cancellationGate,
  'stdio-hygiene': hygieneGate,
  'http-security': httpSecurityGate,
  resources: resourcesGate,
  prompts: promptsGate,
};

/**
 * Runs the quality gates against one server and returns the report. Gates run one after another on fresh
 * connections; stdio hygiene is judged last, over everything the server printed during the check. A server
 * that cannot be checked at all (does not start, exits before the handshake, is not MCP) throws
 * SERVER_FAILED with the cause instead of failing every gate.
 */
export async function runCheck(options: CheckOptions): Promise<CheckReport> {
  const ctx = new GateContext(
    options.target,
    options.timeoutMs ?? 5000,
    options.env ?? process.env,
    options.slowTool,
  );
  const selected = GATE_IDS.filter((id) => !options.only || options.only.includes(id));
  const order = [
    ...selected.filter((id) => id !== 'stdio-hygiene'),
    ...selected.filter((id) => id === 'stdio-hygiene'),
  ];
  const results = new Map<GateId, GateResult>();
  try {
    const timeoutMs = options.timeoutMs ?? 5000;
    await ctx.preflight(options.label, options.startupTimeoutMs ?? Math.max(timeoutMs, 15_000));
    for (const id of order) {
      try {
        results.set(id, await GATES[id](ctx));
      } catch (error) {
        results.set(id, result(id, 'FAIL', errorMessage(error), {}));
      }
    }
  } finally {
    await ctx.dispose();
  }
  const gates = selected.map((id) => results.get(id) as GateResult);
  return {
    target: options.label,
    transport: options.target.kind,
    gates,
    passed: gates.filter((g) => g.status === 'PASS').length,
    failed: gates.filter((g) => g.status === 'FAIL').length,
    skipped: gates.filter((g) => g.status === 'SKIP').length,
  };
}
