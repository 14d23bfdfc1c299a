import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type ConnectAttempt, Runtime } from '../../src/client/index.js';
import { httpError, ScriptedTransport } from './scripted-transport.js';

// A remote server that forgets our session: the Runtime starts a new one and sends the request again,
// in-process over the transport seam (a url entry, so the remote plan applies).
let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

function sessionServer(session: number): McpServer {
  const server = new McpServer({ name: 'sessions', version: '1.0.0' });
  server.registerTool('whoami', { inputSchema: z.object({}) }, async () => ({
    content: [{ type: 'text', text: `session ${session}` }],
  }));
  return server;
}

async function start() {
  const transports: ScriptedTransport[] = [];
  const attempts: ConnectAttempt[] = [];
  runtime = await Runtime.create({
    servers: [
      {
        name: 's',
        entry: { url: 'http://127.0.0.1:9/mcp' },
        transport: (attempt) => {
          attempts.push(attempt);
          const transport = new ScriptedTransport(sessionServer(transports.length + 1));
          transports.push(transport);
          return transport;
        },
      },
    ],
  });
  return { handle: runtime.server('s'), transports, attempts };
}

describe('Runtime session recovery (in-process)', () => {
  it('re-initializes once on a lost session (404) and sends the request again, for concurrent calls too', async () => {
    const { handle, transports, attempts } = await start();
    expect((await handle.callTool('whoami')).content).toEqual([{ type: 'text', text: 'session 1' }]);
    await handle.listTools();
    expect(handle.cachedTools?.map((t) => t.name)).toEqual(['whoami']);
    transports[0]?.failNext('tools/call', httpError(404, 'Not Found'));
    transports[0]?.failNext('tools/call', httpError(404, 'Not Found'));
    const [a, b] = await Promise.all([handle.callTool('whoami'), handle.callTool('whoami')]);
    expect([a.content, b.content]).toEqual([
      [{ type: 'text', text: 'session 2' }],
      [{ type: 'text', text: 'session 2' }],
    ]);
    expect(transports).toHaveLength(2);
    expect(attempts[1]).toEqual({ wire: 'streamable-http', handshake: 'negotiate' });
    expect(handle.cachedTools).toBeUndefined(); // the new session's lists are listed afresh
    expect(handle.status).toBe('ready');
  });

  it('treats a 400 "no valid session" like a 404, and other errors as errors', async () => {
    const { handle, transports } = await start();
    transports[0]?.failNext('tools/call', httpError(400, 'Bad Request: No valid session ID provided'));
    expect((await handle.callTool('whoami')).content).toEqual([{ type: 'text', text: 'session 2' }]);
    transports[1]?.failNext('tools/call', httpError(500, 'Internal Server Error'));
    await expect(handle.callTool('whoami')).rejects.toThrow('Internal Server Error');
    expect(transports).toHaveLength(2);
  });

  it('never re-initializes a stdio server', async () => {
    const transports: ScriptedTransport[] = [];
    runtime = await Runtime.create({
      servers: [
        {
          name: 'local',
          entry: { command: 'in-process' },
          transport: () => {
            const transport = new ScriptedTransport(sessionServer(transports.length + 1));
            transports.push(transport);
            return transport;
          },
        },
      ],
    });
    transports[0]?.failNext('tools/call', httpError(404, 'Not Found'));
    await expect(runtime.server('local').callTool('whoami')).rejects.toThrow('Not Found');
    expect(transports).toHaveLength(1);
  });
});
