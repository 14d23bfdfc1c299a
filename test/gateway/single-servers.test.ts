import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { asReplica } from '../../src/gateway/index.js';
import { serveOverHttp } from '../../src/serve/index.js';
import { CLI, createWorkspace, runCli, type Workspace } from '../helpers/cli.js';

describe('a server marked `single`: run once, reached by replicas over HTTP', () => {
  it('asReplica turns it into an HTTP entry at its URL, keeping its common options', () => {
    const servers = asReplica([
      {
        name: 'memory',
        entry: {
          command: 'node',
          args: ['m.js'],
          env: { A: '1' },
          single: 'http://10.0.0.5:7000/mcp',
          timeout: 5000,
          alwaysLoad: true,
        },
      },
      { name: 'plain', entry: { command: 'node', args: ['p.js'] } },
    ]);
    expect(servers).toEqual([
      {
        name: 'memory',
        entry: { type: 'http', url: 'http://10.0.0.5:7000/mcp', timeout: 5000, alwaysLoad: true },
      },
      { name: 'plain', entry: { command: 'node', args: ['p.js'] } },
    ]);
  });

  let ws: Workspace | undefined;
  afterEach(async () => {
    await ws?.cleanup();
  });

  it('a replica (--session-key) does not start it but serves its tools from the one instance', async () => {
    ws = await createWorkspace();
    const single = await serveOverHttp(() => {
      const server = new McpServer({ name: 'counter', version: '1.0.0' });
      server.registerTool('count', { description: 'Counts.', inputSchema: z.object({}) }, async () => ({
        content: [{ type: 'text', text: 'one instance' }],
      }));
      return server;
    });
    const key = join(ws.root, 'session.key');
    await writeFile(key, 'z'.repeat(40));
    // The command does not exist: only a gateway that is not a replica would try to start it.
    await writeFile(
      join(ws.project, '.mcp.json'),
      JSON.stringify({ mcpServers: { counter: { command: '/nonexistent/counter', single: single.url } } }),
    );
    const child = spawn(process.execPath, [CLI, 'gateway', '-t', 'http', '--session-key', key], {
      cwd: ws.project,
      env: ws.env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      let stderr = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr?.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const match = /serving on (\S+)/u.exec(stderr);
          if (match?.[1]) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`gateway exited (${code}): ${stderr}`)));
      });
      expect(stderr).toContain('1/1 server ready, 1 tool');
      const client = new Client({ name: 't', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const result = await client.callTool({ name: 'counter__count', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'one instance' }]);
      await client.close();
    } finally {
      const gone = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await gone;
      await single.close();
    }
  });

  it('a replica whose Redis is unreachable says so in one line and exits 1 (no port left held)', async () => {
    ws = await createWorkspace();
    const key = join(ws.root, 'session.key');
    await writeFile(key, 'z'.repeat(40));
    const result = await runCli(ws, [
      'gateway',
      '-t',
      'http',
      '--no-search',
      '--session-key',
      key,
      '--state',
      'redis://127.0.0.1:1',
    ]);
    expect([result.code, result.stderr]).toEqual([
      1,
      'mcpkit: cannot reach Redis at 127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1; start it or fix --state\n',
    ]);
  });
});
