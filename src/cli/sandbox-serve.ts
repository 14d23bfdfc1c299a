import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import type { StdioTransport } from '../client/stdio-transport.js';
import { LineSplitter } from '../internal/line-splitter.js';
import type { CliIO } from './io.js';

/** One tool call of a session, as `--session` files hold them. */
export interface SessionCall {
  tool: string;
  arguments: Record<string, unknown>;
}

/**
 * `sandbox learn|check --serve`: the server is served on this process's stdio, frame for frame, to a client
 * the user runs (their agent, Inspector), until it closes stdin or the server ends. The tool calls it makes
 * are the session: returned, so they can be kept (`--record`) and replayed by `check`.
 */
export async function relaySession(
  io: CliIO,
  transport: StdioTransport,
  signal: AbortSignal,
): Promise<SessionCall[]> {
  const calls: SessionCall[] = [];
  transport.onmessage = (message: JSONRPCMessage) => io.out(`${JSON.stringify(message)}\n`);
  await transport.start();
  await new Promise<void>((resolve) => {
    const lines = new LineSplitter((line) => {
      let message: { method?: unknown; params?: { name?: unknown; arguments?: unknown } };
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      if (message.method === 'tools/call' && typeof message.params?.name === 'string') {
        const args = message.params.arguments;
        calls.push({
          tool: message.params.name,
          arguments: typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {},
        });
      }
      transport.send(message as JSONRPCMessage).catch(() => resolve());
    });
    io.stdin.setEncoding?.('utf8');
    io.stdin.on('data', (chunk: string | Buffer) => lines.push(String(chunk)));
    io.stdin.once('end', () => resolve());
    transport.onclose = () => resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await transport.close();
  return calls;
}
