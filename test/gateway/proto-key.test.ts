import { acceptedContent, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it, onTestFinished } from 'vitest';
import * as z from 'zod';
import { serveOverHttp } from '../../src/serve/index.js';
import { clientOf, gatewayOf, textOf } from '../helpers/gateway.js';

// An input request's key is the upstream's to choose: `__proto__` included (review of issue 29's bridge).
describe('gateway: a 2026-07-28 upstream whose input request is keyed __proto__', () => {
  it('gets the 2025 client’s answer under that key, in one round', async () => {
    let calls = 0;
    const http = await serveOverHttp(() => {
      const server = new McpServer({ name: 'odd-keys', version: '1' });
      server.registerTool('odd', { inputSchema: z.object({}) }, async (_args, ctx) => {
        calls++;
        const answer = acceptedContent(ctx.mcpReq.inputResponses, '__proto__');
        if (answer) return { content: [{ type: 'text', text: `got ${String(answer.word)}` }] };
        return inputRequired({
          inputRequests: {
            ['__proto__']: inputRequired.elicit({
              message: 'Word?',
              requestedSchema: { type: 'object', properties: { word: { type: 'string' } } },
            }),
          },
        });
      });
      return server;
    });
    onTestFinished(() => http.close());
    const started = await gatewayOf([{ name: 'up', entry: { type: 'http', url: http.url } }]);
    const client = await clientOf(started.gateway, { capabilities: { elicitation: {} } });
    client.client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { word: 'hello' },
    }));
    const result = await client.client.callTool({ name: 'up__odd', arguments: {} });
    expect(textOf(result)).toBe('got hello');
    expect(calls).toBe(2);
  });
});
