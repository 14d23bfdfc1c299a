// A raw HTTP load generator for MCP servers: keep-alive sockets, a prepared 2026-07-28 tools/call, N in
// flight. It costs far less per call than the SDK client, so it measures the server rather than the client.
import { Agent, request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** Calls `tool` `total` times with `inFlight` at once; resolves calls per second. Every answer is checked. */
export async function rawHttpThroughput(
  url: string,
  tool: string,
  total: number,
  inFlight: number,
): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
  const target = new URL(url);
  let id = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'tools/call',
        params: { name: tool, arguments: { text: 'hi' }, _meta: ENVELOPE },
      });
      const req = request(
        target,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': tool,
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () =>
            text.includes('"result"') ? resolve() : reject(new Error(`bad answer: ${text}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  let next = 0;
  const worker = async () => {
    while (next < total) {
      next++;
      await one();
    }
  };
  for (let i = 0; i < 100; i++) await one();
  next = 0;
  const t = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - t) / 1000;
  agent.destroy();
  return total / seconds;
}

/** The same load through the SDK client (what an MCP host would see); the client itself costs the most. */
export async function sdkHttpThroughput(
  url: string,
  tool: string,
  total: number,
  inFlight: number,
): Promise<number> {
  const client = new Client({ name: 'bench', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  let next = 0;
  const worker = async () => {
    while (next < total) {
      next++;
      await client.callTool({ name: tool, arguments: { text: 'hi' } });
    }
  };
  for (let i = 0; i < 50; i++) await client.callTool({ name: tool, arguments: { text: 'hi' } });
  const t = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - t) / 1000;
  await client.close();
  return total / seconds;
}
