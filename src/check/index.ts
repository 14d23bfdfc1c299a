// mcpkit/check — everything exported here is public API.
export type { CheckTarget, SlowTool } from './context.js';
export {
  type CheckReport,
  formatReport,
  GATE_IDS,
  type GateId,
  type GateResult,
  type GateStatus,
  isGateId,
} from './report.js';
export { type CheckOptions, runCheck } from './run-check.js';
