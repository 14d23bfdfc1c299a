import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, type Workspace } from '../helpers/cli.js';
import { serverChecks, serverConformance, tally, WIRES, type WireVersion } from '../helpers/conformance.js';
import { writeProjectConfig } from '../helpers/gateway.js';
import { only2025, type Running, startReference } from '../helpers/reference.js';
import { startServingCli } from '../helpers/servers.js';

/** The scenarios a tally passes in full (a 0/0 scenario, all skipped, is not a pass). */
function passed(tally: Record<string, string>): string[] {
  return Object.entries(tally)
    .filter(([, result]) => {
      const [got, of] = result.split('/');
      return got === of && of !== '0';
    })
    .map(([scenario]) => scenario)
    .sort();
}

/**
 * Scenarios the reference passes directly that no gateway can pass in a pairing, and why (docs/gateway.md,
 * "Era pairings, measured"). Each is checked to fail for that reason, not assumed: one of its failed checks
 * through the gateway says so (the pattern).
 */
const IR = 'input-required-result-';
const CANNOT: Record<Pairing, Record<WireVersion, Record<string, RegExp>>> = {
  '2026 upstream': {
    // A 2026-07-28 server cannot send requests mid-call (only `input_required` results); the reference's 2026
    // path runs these 2025 fixtures in-process, where their elicitation / sampling request fails, and answers
    // with that failure — so no request ever reaches the gateway to pass on.
    '2025-11-25': Object.fromEntries(
      [
        'elicitation-sep1034-defaults',
        'elicitation-sep1330-enums',
        'tools-call-elicitation',
        'tools-call-sampling',
      ].map((scenario) => [scenario, /^Server did not request (elicitation|sampling) from client$/]),
    ),
    '2026-07-28': {},
  },
  '2025 upstream': {
    '2025-11-25': {},
    // The `input_required` fixtures (tools `test_input_required_result_*`, the prompt
    // `test_input_required_result_prompt`) exist only on the reference's 2026 path; so do the diagnostic
    // tools of `server-stateless` (`test_missing_capability`, and `test_trigger_tool_change` /
    // `test_trigger_prompt_change`, which change the lists): the 2025 path answers "not found" as a tool
    // error, and its lists never change.
    '2026-07-28': {
      ...Object.fromEntries(
        inputRequired().map((scenario) => [
          scenario,
          /InputRequiredResult|got "complete"|Unknown prompt: test_input_required_result_prompt/,
        ]),
      ),
      'server-stateless':
        /^Server executed 'test_missing_capability'|^Mutated the (tool|prompt) list but no notifications/,
    },
  },
};

/**
 * Scenarios the reference passes directly that the gateway does not pass yet, per pairing and wire: open work
 * (issue 29). The lists are exact, so a fix that makes one pass fails this test until its line goes.
 */
const OPEN: Record<Pairing, Record<WireVersion, string[]>> = {
  '2026 upstream': { '2025-11-25': [], '2026-07-28': [] },
  '2025 upstream': { '2025-11-25': [], '2026-07-28': [] },
};

/**
 * The `input_required` scenarios of the suite (SEP-2322) on fixtures of the reference's 2026 path
 * (`ignore-extra-params` is not: it passes through a 2025 upstream too).
 */
function inputRequired(): string[] {
  return [
    'basic-elicitation',
    'basic-list-roots',
    'basic-sampling',
    'capability-check',
    'missing-input-response',
  ]
    .concat(['multi-round', 'multiple-input-requests', 'non-tool-request', 'request-state', 'result-type'])
    .concat(['tampered-state'])
    .map((name) => `${IR}${name}`);
}

/**
 * What the gateway passes and the reference does not, at 2026: the reference omits `resultType` on complete
 * results, which the suite requires; the gateway always sends it (and checks `Mcp-*` headers the same way).
 */
/** The tool-call scenarios the reference fails at 2026 only for the `resultType` it leaves out. */
const TOOL_CALLS = [
  'audio',
  'embedded-resource',
  'error',
  'image',
  'mixed-content',
  'simple-text',
  'with-progress',
].map((name) => `tools-call-${name}`);

const EXTRA: Record<Pairing, Record<WireVersion, string[]>> = {
  '2026 upstream': {
    '2025-11-25': [],
    '2026-07-28': ['http-header-validation', `${IR}validate-input`, ...TOOL_CALLS],
  },
  '2025 upstream': { '2025-11-25': [], '2026-07-28': ['http-header-validation', ...TOOL_CALLS] },
};

type Pairing = '2026 upstream' | '2025 upstream';

describe('the gateway in front of the conformance suite’s own reference server (suite 0.2 alpha, server mode)', () => {
  let reference: Running;
  let forced: Running;
  const direct: Partial<Record<WireVersion, string[]>> = {};
  beforeAll(async () => {
    reference = await startReference();
    forced = await only2025(reference.url);
    for (const wire of WIRES) direct[wire] = passed(await serverConformance(reference.url, wire));
  }, 600_000);
  afterAll(() => {
    forced?.stop();
    reference?.stop();
  });

  it.each(['2026 upstream', '2025 upstream'] as const)(
    'with the reference as a %s, passes at both wires what the reference passes directly',
    async (pairing) => {
      const ws: Workspace = await createWorkspace();
      let gateway: { url: string; stop: () => void } | undefined;
      try {
        const url = pairing === '2026 upstream' ? reference.url : forced.url;
        await writeProjectConfig(ws, { everything: { type: 'http', url } });
        gateway = await startServingCli(
          ['gateway', '--prefix', 'none', '--transport', 'http', '--defer-threshold', '1000'],
          { cwd: ws.project, env: ws.env },
        );
        const got: Record<string, { missing: string[]; extra: string[]; reasons: string[] }> = {};
        const expected: Record<string, { missing: string[]; extra: string[]; reasons: string[] }> = {};
        for (const wire of WIRES) {
          const checks = await serverChecks(gateway.url, wire);
          const through = passed(tally(checks));
          const alone = direct[wire] ?? [];
          const cannot = CANNOT[pairing][wire];
          got[wire] = {
            missing: alone.filter((scenario) => !through.includes(scenario)),
            extra: through.filter((scenario) => !alone.includes(scenario)),
            // Why each scenario no gateway can pass failed here: the first failed check that gives that reason.
            reasons: Object.keys(cannot).filter((scenario) =>
              (checks[scenario] ?? []).some(
                (check) => check.status !== 'SUCCESS' && cannot[scenario]?.test(check.errorMessage ?? ''),
              ),
            ),
          };
          expected[wire] = {
            missing: [...OPEN[pairing][wire], ...Object.keys(cannot)].sort(),
            extra: EXTRA[pairing][wire],
            reasons: Object.keys(cannot),
          };
        }
        // The reference passes what the issue measured (33 at 2025, 31 at 2026): a changed reference shows here.
        expect([direct['2025-11-25']?.length, direct['2026-07-28']?.length]).toEqual([33, 31]);
        expect(got).toEqual(expected);
      } finally {
        gateway?.stop();
        await ws.cleanup();
      }
    },
    600_000,
  );
});
