import { afterEach, describe, expect, it } from 'vitest';
import { runsMcpkitGateway as isGatewayCommand } from '../../src/config/index.js';
import { connectInProcess, startGateway, textOf, toolServer } from '../helpers/gateway.js';

describe('isGatewayCommand', () => {
  it.each([
    ['mcpkit', 'gateway'],
    ['/usr/local/bin/mcpkit', 'gateway', '--transport', 'stdio'],
    ['mcpkit.cmd', 'gateway'],
    ['npx', 'mcpkit', 'gateway'],
    ['npx', '-y', 'mcpkit', 'gateway'],
    ['npx', '-y', 'mcpkit@0.3.1', 'gateway', '--only', 'fs'],
    ['npx', '--yes', '--package', 'mcpkit', 'mcpkit', 'gateway'],
    ['C:\\Program Files\\nodejs\\npx.cmd', '-y', 'mcpkit@latest', 'gateway'],
    ['pnpm', 'dlx', 'mcpkit', 'gateway'],
    ['bunx', 'mcpkit', 'gateway'],
    ['npm', 'exec', '--', 'mcpkit', 'gateway'],
    ['node', '/home/ada/.npm/_npx/1/node_modules/mcpkit/dist/cli/main.js', 'gateway'],
    ['node', '/work/main/dist/cli/main.js', 'gateway'],
    [process.execPath, '--enable-source-maps', '/opt/mcpkit/dist/cli/main.js', 'gateway'],
    ['env', 'MCPKIT_DEBUG=1', 'npx', '-y', 'mcpkit', 'gateway'],
  ])('recognises %s … as this gateway', (command, ...args) => {
    expect(isGatewayCommand({ command, args })).toBe(true);
  });

  it.each([
    ['mcpkit', 'search-server', '.'],
    ['mcpkit', 'bridge', 'gateway.yaml'],
    ['npx', '-y', '@modelcontextprotocol/server-everything'],
    ['npx', '-y', 'other-gateway', 'gateway'],
    ['node', '/srv/api/server.js', 'gateway'],
    ['node', '/work/main/dist/cli/main.js', 'search-server'],
    ['uvx', 'mcp-gateway'],
  ])('leaves %s … alone', (command, ...args) => {
    expect(isGatewayCommand({ command, args })).toBe(false);
  });

  it('leaves remote servers alone', () => {
    expect(isGatewayCommand({ url: 'http://127.0.0.1:3000/mcp' })).toBe(false);
  });
});

describe('gateway: an upstream that runs the gateway itself', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('is not started, and is reported as failed with the reason; the others serve', async () => {
    const started = await startGateway([
      { name: 'gw', entry: { command: 'npx', args: ['-y', 'mcpkit', 'gateway'] } },
      toolServer('a', { read: 'Reads.' }),
    ]);
    close = started.close;
    const reason =
      'runs this gateway itself; remove it from the config the gateway serves (`mcpkit remove <name>`)';
    expect(started.gateway.status()).toEqual([
      { name: 'gw', state: 'failed', transport: 'stdio', restarts: 0, lastError: reason },
      expect.objectContaining({ name: 'a', state: 'ready' }),
    ]);
    expect(started.log).toContain(`server "gw" not started: it ${reason}`);
    const client = await connectInProcess(started.gateway);
    expect((await client.client.listTools()).tools.map((t) => t.name)).toEqual(['a__read']);
    expect(textOf(await client.client.callTool({ name: 'a__read', arguments: {} }))).toBe('a:read {}');
    await client.close();
  });
});
