/** The gates, in the order they run and print. */
export const GATE_IDS = [
  'handshake',
  'generations',
  'tools',
  'robustness',
  'progress',
  'cancellation',
  'stdio-hygiene',
  'http-security',
  'resources',
  'prompts',
] as const;
/** One gate of `mcpkit check`, by name (`handshake`, `robustness`, …). */
export type GateId = (typeof GATE_IDS)[number];

/** A gate's verdict: passed, failed, or not run (with the reason in its evidence). */
export type GateStatus = 'PASS' | 'FAIL' | 'SKIP';

/** One gate's verdict with the evidence behind it (timings, the offending tool, raw responses). */
export interface GateResult {
  gate: GateId;
  status: GateStatus;
  summary: string;
  evidence: Record<string, unknown>;
}

/** A whole check: what was checked and every gate's result. */
export interface CheckReport {
  target: string;
  transport: 'stdio' | 'http';
  gates: GateResult[];
  passed: number;
  failed: number;
  skipped: number;
}

/** True when `id` names a gate. */
export function isGateId(id: string): id is GateId {
  return (GATE_IDS as readonly string[]).includes(id);
}

/** The report as terminal text: one line per gate, the failures' evidence under them, a total line. */
export function formatReport(report: CheckReport): string {
  const lines = [`mcpkit check: ${report.target} (${report.transport})`];
  const width = Math.max(...report.gates.map((g) => g.gate.length));
  for (const gate of report.gates) {
    lines.push(`${gate.status}  ${gate.gate.padEnd(width)}  ${gate.summary}`);
    if (gate.status === 'FAIL') {
      for (const [key, value] of Object.entries(gate.evidence)) {
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        // Full evidence is in --json; the terminal gets one readable line per item.
        const line = text.replace(/\s+/g, ' ');
        lines.push(`      ${key}: ${line.length > 160 ? `${line.slice(0, 157)}...` : line}`);
      }
    }
  }
  lines.push(`${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped`);
  return `${lines.join('\n')}\n`;
}
