import { describe, expect, it } from 'vitest';
import { runsMcpkitGateway } from '../../src/config/index.js';

const stdio = (line: string[]) => ({ command: line[0] as string, args: line.slice(1) });

describe('runsMcpkitGateway', () => {
  it.each([
    ['mcpkit', 'gateway'],
    ['npx', 'mcpkit', 'gateway'],
    ['npx', '-y', 'mcpkit', 'gateway'],
    ['npx', '--yes', 'mcpkit@0.1.0', 'gateway', '--transport', 'stdio'],
    ['npx', '-p', 'mcpkit', 'mcpkit', 'gateway'],
    ['/usr/local/bin/mcpkit', 'gateway'],
    ['C:\\Users\\me\\AppData\\Roaming\\npm\\mcpkit.cmd', 'gateway'],
    ['node', '/home/me/mcpkit/dist/bin/main.js', 'gateway'],
    ['node', '/opt/mcpkit/dist/bin/main.js', 'gateway', '--transport', 'stdio'],
    ['node', '--enable-source-maps', 'dist/bin/main.js', 'gateway'],
    ['/usr/bin/node', '/srv/mcpkit/main.js', 'gateway'],
    ['tsx', 'src/bin/main.ts', 'gateway'],
    ['pnpm', 'dlx', 'mcpkit', 'gateway'],
    ['yarn', 'dlx', 'mcpkit', 'gateway'],
    ['npm', 'exec', '--', 'mcpkit', 'gateway'],
    ['bunx', 'mcpkit', 'gateway'],
    ['sh', '-c', 'npx -y mcpkit gateway'],
    ['bash', '-lc', 'exec mcpkit gateway --search'],
    ['cmd', '/c', 'npx', '-y', 'mcpkit', 'gateway'],
    ['mcpkit', '--verbose', 'gateway'],
  ])('recognises %s', (...line) => {
    expect(runsMcpkitGateway(stdio(line))).toBe(true);
  });

  it.each([
    ['mcpkit', 'search-server'],
    ['npx', '-y', 'mcpkit', 'bridge', 'gateway.yaml'],
    ['npx', '-y', '@modelcontextprotocol/server-memory'],
    ['node', 'server.js', 'gateway'],
    // Another package's entry script: only mcpkit's own paths count (the child's env marker catches the rest).
    ['node', 'main.js', 'gateway'],
    ['node', '/srv/other-tool/dist/main.js', 'gateway'],
    ['gateway'],
    ['npx', 'other-gateway', 'gateway'],
    ['mcpkit'],
  ])('leaves %s alone', (...line) => {
    expect(runsMcpkitGateway(stdio(line))).toBe(false);
  });

  it('is false for a remote server', () => {
    expect(runsMcpkitGateway({ type: 'http', url: 'https://x.example/mcp' })).toBe(false);
  });
});
