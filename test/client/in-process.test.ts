import { InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Runtime } from '../../src/client/index.js';

// The Runtime's transport seam: a server in this process, no spawn, no port.
describe('Runtime over an in-process transport', () => {
  let runtime: Runtime | undefined;
  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
  });

  function echoServer() {
    const server = new McpServer({ name: 'echo', version: '1.2.3' });
    server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
      content: [{ type: 'text', text: `echo: ${text}` }],
    }));
    return server;
  }

  it('lists and calls tools of a server connected through the transport factory', async () => {
    const server = echoServer();
    runtime = await Runtime.create({
      servers: [
        {
          name: 'mem',
          entry: { command: 'never-spawned' },
          transport: () => {
            const [client, serverSide] = InMemoryTransport.createLinkedPair();
            void server.connect(serverSide);
            return client;
          },
        },
      ],
    });
    const connection = runtime.server('mem');
    expect(connection.status).toBe('ready');
    expect(connection.serverInfo?.version).toBe('1.2.3');
    expect((await connection.listTools()).map((tool) => tool.name)).toEqual(['echo']);
    const result = await connection.callTool('echo', { text: 'hi' });
    expect(result.content).toEqual([{ type: 'text', text: 'echo: hi' }]);
  });

  it('attaches the listeners it is given before the first server starts', async () => {
    const server = echoServer();
    const started: string[] = [];
    runtime = await Runtime.create({
      servers: [
        {
          name: 'mem',
          entry: { command: 'never-spawned' },
          transport: () => {
            const [client, serverSide] = InMemoryTransport.createLinkedPair();
            void server.connect(serverSide);
            return client;
          },
        },
      ],
      listeners: { server_started: ({ server }) => started.push(server) },
    });
    expect(started).toEqual(['mem']);
  });
});
