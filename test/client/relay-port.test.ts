import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { type RelayResponse, Runtime } from '../../src/client/index.js';
import { eventually } from '../helpers/eventually.js';
import { rawServer } from '../helpers/servers.js';
import { ScriptedTransport } from './scripted-transport.js';

// The raw relay as a proxy gets it: `runtime.relay(server)`, a port that sends requests as they are and
// hands the answers back unparsed.
let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

describe('runtime.relay(server)', () => {
  it('relays a request to a stdio server and back, and cancels one in flight', async () => {
    runtime = await Runtime.create({ servers: [{ name: 'raw', entry: rawServer() }] });
    const port = runtime.relay('raw');
    expect(port).toBeDefined();
    const answers: RelayResponse[] = [];
    const id = port?.request('tools/call', { name: 'progress', arguments: { count: 0 } }, (r) =>
      answers.push(r),
    );
    expect(id).toMatch(/^mcpkit-relay-/);
    await eventually(() => answers[0]);
    // The answer as the server sent it (its id is the relay's own).
    expect(answers).toEqual([
      { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'sent 0' }] } },
    ]);

    const stderr: string[] = [];
    runtime.on('stderr', ({ line }) => stderr.push(line));
    const hanging: RelayResponse[] = [];
    const hangId = port?.request('tools/call', { name: 'hang', arguments: {} }, (r) =>
      hanging.push(r),
    ) as string;
    port?.cancel(hangId, 'no longer needed');
    expect(hanging).toEqual([{ error: { code: -32800, message: 'Request cancelled' } }]);
    await eventually(() => (stderr.includes(`cancelled ${hangId}`) ? true : undefined));
  });

  it('is undefined for an unknown server, one that is down, or one whose transport cannot relay', async () => {
    runtime = await Runtime.create({
      startupPolicy: 'log-and-continue',
      servers: [
        { name: 'raw', entry: rawServer() },
        {
          name: 'mem',
          entry: { command: 'in-process' },
          transport: () => new ScriptedTransport(new McpServer({ name: 'm', version: '1' })),
        },
      ],
    });
    expect(runtime.relay('nope')).toBeUndefined();
    expect(runtime.relay('mem')).toBeUndefined();
    const port = runtime.relay('raw');
    await runtime.remove('raw');
    expect(runtime.relay('raw')).toBeUndefined();
    // A port kept from before sends nothing once its server is gone.
    expect(port?.request('ping', {}, () => undefined)).toBeUndefined();
  });
});
