import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, runConformance } from '../helpers/conformance.js';
import { fixture, startBridgeHttp } from '../helpers/servers.js';

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
