import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../helpers/cli.js';
import {
  extensionConformance,
  only,
  root,
  runConformance,
  serverConformance,
  tally,
  WIRES,
  type WireVersion,
} from '../helpers/conformance.js';
import { writeProjectConfig } from '../helpers/gateway.js';
import {
  everything,
  fixture,
  startBridgeHttp,
  startEverythingHttp,
  startServingCli,
} from '../helpers/servers.js';

describe('MCP conformance suite, client mode: the mcpkit CLI as the client under test', () => {
  const client = `${process.execPath} ${join(root, 'test/conformance/client.mjs')}`;
  it.each([
    ['initialize', 1],
    ['tools_call', 1],
    ['elicitation-sep1034-client-defaults', 5],
    ['sse-retry', 3],
  ])('%s passes all %i checks', async (scenario, checks) => {
    const { code, output } = await runConformance(['client', '--command', client, '--scenario', scenario]);
    expect(output).toContain(`Passed: ${checks}/${checks}, 0 failed, 0 warnings`);
    expect(output).toContain('OVERALL: PASSED');
    expect(code).toBe(0);
  });
});

describe('MCP conformance suite 0.2 alpha, client mode: the mcpkit CLI at both wires', () => {
  const client = `${process.execPath} ${join(root, 'test/conformance/client.mjs')}`;
  // Every non-auth client scenario of the suite, at each wire it applies to, with its checks.
  const expected: Record<(typeof WIRES)[number], Record<string, string>> = {
    '2025-11-25': {
      initialize: '1/1',
      tools_call: '2/2',
      'elicitation-sep1034-client-defaults': '5/5',
      'sse-retry': '3/3',
      'json-schema-2020-12-preservation': '9/9',
    },
    '2026-07-28': {
      tools_call: '2/2',
      'request-metadata': '6/6',
      'sep-2322-client-request-state': '5/5',
      'http-standard-headers': '4/4',
      'http-custom-headers': '18/18',
      'http-invalid-tool-headers': '12/12',
      'json-schema-ref-no-deref': '1/1',
      'json-schema-2020-12-preservation': '9/9',
    },
  };
  it.each(WIRES)(
    'passes every check of every non-auth scenario at %s',
    async (wire) => {
      const runs = await Promise.all(
        Object.keys(expected[wire]).map((scenario) =>
          runConformance(
            ['client', '--command', client, '--scenario', scenario, '--spec-version', wire],
            'next',
          ),
        ),
      );
      const got = Object.assign({}, ...runs.map((run) => tally(run.checks)));
      expect(got).toEqual(expected[wire]);
      expect(runs.map((run) => run.code)).toEqual(runs.map(() => 0));
    },
    120_000,
  );
});

describe('MCP conformance suite, server mode: `mcpkit bridge --transport http`', () => {
  let bridge: { url: string; stop: () => void };
  beforeAll(async () => {
    bridge = await startBridgeHttp(fixture('bridge/contract.yaml'));
  });
  afterAll(() => {
    bridge.stop();
  });

  it.each([
    ['server-initialize', 1],
    ['ping', 1],
    ['tools-list', 1],
    ['logging-set-level', 1],
    ['dns-rebinding-protection', 2],
  ])('%s passes all %i checks', async (scenario, checks) => {
    const { code, output } = await runConformance(['server', '--url', bridge.url, '--scenario', scenario]);
    expect(output).toContain(`Passed: ${checks}/${checks}, 0 failed, 0 warnings`);
    expect(code).toBe(0);
  });
});

/**
 * What applies to an mcpkit server that offers tools only (the bridge, the search server): every scenario of
 * the 0.2 suite that needs no tool, resource or prompt of the suite's own, with its checks.
 */
const TOOLS_ONLY: Record<WireVersion, Record<string, string>> = {
  '2025-11-25': {
    'server-initialize': '3/3',
    'server-session-lifecycle': '3/3',
    ping: '2/2',
    'tools-list': '3/3',
    'server-sse-multiple-streams': '2/2',
    'dns-rebinding-protection': '2/2',
  },
  '2026-07-28': {
    'server-stateless': '24/24',
    'tools-list': '4/4',
    'http-header-validation': '14/14',
    'server-sse-multiple-streams': '1/1',
    'dns-rebinding-protection': '2/2',
    'input-required-result-unsupported-methods': '2/2',
    'input-required-result-validate-input': '3/3',
  },
};

describe('MCP conformance suite 0.2 alpha, server mode: mcpkit servers at both wires', () => {
  it('`mcpkit bridge` and `mcpkit search-server` pass every scenario that applies to them', async () => {
    const bridge = await startBridgeHttp(fixture('bridge/contract.yaml'));
    const search = await startServingCli(['search-server', fixture('bridge'), '--transport', 'http']);
    try {
      const targets = { bridge, search };
      const runs = await Promise.all(
        Object.entries(targets).flatMap(([name, target]) =>
          WIRES.map(async (wire) => [`${name} ${wire}`, await serverConformance(target.url, wire)] as const),
        ),
      );
      const got = Object.fromEntries(
        runs.map(([key, results]) => [
          key,
          only(results, Object.keys(TOOLS_ONLY[key.split(' ')[1] as WireVersion])),
        ]),
      );
      const expected = Object.fromEntries(
        runs.map(([key]) => [key, TOOLS_ONLY[key.split(' ')[1] as WireVersion]]),
      );
      expect(got).toEqual(expected);
      // The bridge also takes logging/setLevel (the search server offers no logging).
      expect(runs.find(([key]) => key === 'bridge 2025-11-25')?.[1]['logging-set-level']).toBe('2/2');
    } finally {
      bridge.stop();
      search.stop();
    }
  }, 120_000);
});

/** The gateway in front of mcpkit's stand-in for the suite's reference server, at each wire. */
const BEHIND_GATEWAY: Record<WireVersion, Record<string, string>> = {
  '2025-11-25': {
    'server-initialize': '3/3',
    'server-session-lifecycle': '3/3',
    'logging-set-level': '2/2',
    ping: '2/2',
    'completion-complete': '2/2',
    'tools-list': '3/3',
    'tools-call-simple-text': '2/2',
    'tools-call-image': '2/2',
    'tools-call-audio': '2/2',
    'tools-call-embedded-resource': '2/2',
    'tools-call-mixed-content': '2/2',
    'tools-call-error': '2/2',
    'tools-call-with-progress': '2/2',
    'tools-call-with-logging': '2/2',
    'tools-call-sampling': '2/2',
    'tools-call-elicitation': '2/2',
    'elicitation-sep1034-defaults': '6/6',
    'elicitation-sep1330-enums': '6/6',
    'json-schema-2020-12': '8/8',
    'server-sse-multiple-streams': '2/2',
    'resources-list': '2/2',
    'resources-read-text': '2/2',
    'resources-read-binary': '2/2',
    'resources-templates-read': '2/2',
    'resources-subscribe': '2/2',
    'resources-unsubscribe': '2/2',
    'prompts-list': '2/2',
    'prompts-get-simple': '2/2',
    'prompts-get-with-args': '2/2',
    'prompts-get-embedded-resource': '2/2',
    'prompts-get-with-image': '2/2',
    'dns-rebinding-protection': '2/2',
  },
  '2026-07-28': {
    'server-stateless': '26/26',
    caching: '8/8',
    'completion-complete': '2/2',
    'tools-list': '4/4',
    'tools-call-simple-text': '2/2',
    'tools-call-image': '2/2',
    'tools-call-audio': '2/2',
    'tools-call-embedded-resource': '2/2',
    'tools-call-mixed-content': '2/2',
    'tools-call-error': '2/2',
    'tools-call-with-progress': '2/2',
    'json-schema-2020-12': '8/8',
    'server-sse-multiple-streams': '1/1',
    'resources-list': '2/2',
    'resources-read-text': '2/2',
    'resources-read-binary': '2/2',
    'resources-templates-read': '2/2',
    'sep-2164-resource-not-found': '4/4',
    'prompts-list': '2/2',
    'prompts-get-simple': '2/2',
    'prompts-get-with-args': '2/2',
    'prompts-get-embedded-resource': '2/2',
    'prompts-get-with-image': '2/2',
    'dns-rebinding-protection': '2/2',
    'http-header-validation': '14/14',
    'http-custom-header-server-validation': '10/10',
    'input-required-result-basic-elicitation': '3/3',
    'input-required-result-basic-sampling': '3/3',
    'input-required-result-basic-list-roots': '3/3',
    'input-required-result-request-state': '3/3',
    'input-required-result-multiple-input-requests': '3/3',
    'input-required-result-multi-round': '4/4',
    'input-required-result-missing-input-response': '2/2',
    'input-required-result-non-tool-request': '3/3',
    'input-required-result-result-type': '2/2',
    'input-required-result-unsupported-methods': '2/2',
    'input-required-result-tampered-state': '2/2',
    'input-required-result-capability-check': '2/2',
    'input-required-result-ignore-extra-params': '2/2',
    'input-required-result-validate-input': '3/3',
  },
};

/**
 * The tasks extension (SEP-2663) through the gateway, at the 2026-07-28 wire: the reference server makes the
 * tasks, the gateway passes them through under its own ids. `tasks-status-notifications` is all skipped by
 * the suite (0/0: its harness waits for a rewrite against `subscriptions/listen`).
 */
const TASKS_BEHIND_GATEWAY: Record<string, string> = {
  'tasks-lifecycle': '9/9',
  'tasks-capability-negotiation': '5/5',
  'tasks-wire-fields': '4/4',
  'tasks-request-state-removal': '3/3',
  'tasks-mrtr-input': '4/4',
  'tasks-request-headers': '5/5',
  'tasks-dispatch-and-envelope': '9/9',
  'tasks-status-notifications': '0/0',
  'tasks-required-task-error': '3/3',
  'tasks-mrtr-composition': '2/2',
};

describe('MCP conformance suite 0.2 alpha, server mode: the gateway in front of a reference server', () => {
  it('passes at both wires what the reference server offers, and the tasks extension', async () => {
    const ws = await createWorkspace();
    let gateway: { url: string; stop: () => void } | undefined;
    try {
      await writeProjectConfig(ws, {
        reference: { command: process.execPath, args: [fixture('servers/conformance-server.mjs')] },
      });
      gateway = await startServingCli(
        ['gateway', '--prefix', 'none', '--transport', 'http', '--defer-threshold', '1000'],
        { cwd: ws.project, env: ws.env },
      );
      const url = gateway.url;
      const [runs, tasks] = await Promise.all([
        Promise.all(WIRES.map((wire) => serverConformance(url, wire))),
        extensionConformance(url, Object.keys(TASKS_BEHIND_GATEWAY)),
      ]);
      const got = Object.fromEntries(
        WIRES.map((wire, i) => [wire, only(runs[i] ?? {}, Object.keys(BEHIND_GATEWAY[wire]))]),
      );
      expect(got).toEqual(BEHIND_GATEWAY);
      expect(tasks).toEqual(TASKS_BEHIND_GATEWAY);
    } finally {
      gateway?.stop();
      await ws.cleanup();
    }
  }, 120_000);
});

/** Each scenario's result line from the suite's summary: `name: N passed, M failed`. */
function summary(output: string): Record<string, string> {
  const results: Record<string, string> = {};
  const tail = output.slice(output.indexOf('=== SUMMARY ==='));
  for (const match of tail.matchAll(/^[✓✗] (\S+): (\d+ passed, \d+ failed)$/gmu))
    results[match[1] as string] = match[2] as string;
  return results;
}

describe('MCP conformance suite, server mode: transparency of `mcpkit gateway --prefix none`', () => {
  it('passes what server-everything passes directly, and DNS-rebinding protection besides', async () => {
    const ws = await createWorkspace();
    const direct = await startEverythingHttp('streamableHttp');
    let gateway: { url: string; stop: () => void } | undefined;
    try {
      await writeProjectConfig(ws, { everything });
      gateway = await startServingCli(
        ['gateway', '--prefix', 'none', '--transport', 'http', '--defer-threshold', '1000'],
        { cwd: ws.project, env: ws.env },
      );
      const [alone, behind] = await Promise.all([
        runConformance(['server', '--url', direct.url]),
        runConformance(['server', '--url', gateway.url]),
      ]);
      const expected = summary(alone.output);
      const got = summary(behind.output);
      expect(Object.keys(expected).length).toBeGreaterThan(25);
      // server-everything does not check Host/Origin; the gateway does (both checks pass).
      expect(expected['dns-rebinding-protection']).toBe('1 passed, 1 failed');
      expect(got).toEqual({ ...expected, 'dns-rebinding-protection': '2 passed, 0 failed' });
    } finally {
      gateway?.stop();
      direct.stop();
      await ws.cleanup();
    }
  }, 60_000);
});
