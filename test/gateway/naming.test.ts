import { Server } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { parseServerEntry } from '../../src/config/index.js';
import { isMcpkitError } from '../../src/errors/index.js';
import {
  connectInProcess,
  eventually,
  inProcessUpstream,
  startGateway,
  textOf,
  toolServer,
} from '../helpers/gateway.js';

// A server entry's `prefix` (an alias for its name in exposed names) and `rename` (a tool under another name).
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('gateway: per-server prefix and per-tool rename', () => {
  it('exposes tools as <prefix>__<new name> and routes the call to the upstream under its own name', async () => {
    const started = await startGateway([
      toolServer(
        'github-enterprise',
        { create_issue: 'Creates an issue.', search: 'Searches.' },
        { prefix: 'gh', rename: { create_issue: 'new_issue' } },
      ),
      toolServer('files', { read: 'Reads.' }, { rename: { read: 'cat' } }),
    ]);
    cleanups.push(started.close);
    const client = await connectInProcess(started.gateway);
    cleanups.push(client.close);
    const tools = (await client.client.listTools()).tools;
    expect(tools.map((t) => t.name)).toEqual(['gh__new_issue', 'gh__search', 'files__cat']);
    expect(tools[0]?.description).toBe('Creates an issue.');
    const result = await client.client.callTool({ name: 'gh__new_issue', arguments: { title: 't' } });
    expect(textOf(result)).toBe('github-enterprise:create_issue {"title":"t"}');
    expect(textOf(await client.client.callTool({ name: 'files__cat', arguments: {} }))).toBe('files:read {}');
    // The old names are gone.
    await expect(
      client.client.callTool({ name: 'github-enterprise__create_issue', arguments: {} }),
    ).rejects.toThrow('Unknown tool: github-enterprise__create_issue');
  });

  it('keeps an exposed name within 64 characters however long the prefix and the new name', async () => {
    const started = await startGateway([
      toolServer('s', { t: 'T.' }, { prefix: 'p'.repeat(40), rename: { t: 'n'.repeat(40) } }),
    ]);
    cleanups.push(started.close);
    const [tool] = (await started.gateway.catalog()).tools;
    expect(tool?.name.length).toBeLessThanOrEqual(64);
    expect(tool?.name.startsWith('p'.repeat(40))).toBe(true);
  });

  it('refuses to start when a prefix or a rename makes two names collide, naming both servers', async () => {
    const log: string[] = [];
    const error = await startGateway(
      [
        toolServer('a', { read: 'A.' }, { prefix: 'fs' }),
        toolServer('b', { cat: 'B.' }, { prefix: 'fs', rename: { cat: 'read' } }),
      ],
      { log: (line) => log.push(line) },
    ).catch((e: unknown) => e);
    // The one line is the error: no "the first one is served" warning for a gateway that does not start.
    expect(log.filter((line) => line.includes('clashes'))).toEqual([]);
    expect(isMcpkitError(error) && error.code).toBe('INVALID_ARGUMENT');
    expect((error as Error).message).toBe(
      'exposed names must be unique, but tool "fs__read" of b ("cat") clashes with a\'s ("read"); ' +
        'change the "prefix" or "rename" of one of them in the config',
    );
  });

  it('checks prefix and rename in the config with their JSON path', () => {
    const bad = parseServerEntry({ command: 'x', prefix: 'a__b', rename: { t: 'has space' } });
    expect(bad.ok).toBe(false);
    expect(bad.ok ? [] : bad.issues).toEqual([
      { path: ['prefix'], message: 'must not contain "__"' },
      { path: ['rename', 't'], message: 'must be 1-64 characters of A-Z a-z 0-9 _ -' },
    ]);
  });
});

describe('gateway: an upstream whose listing fails', () => {
  it('leaves its tools out and says why once, while the others are listed', async () => {
    const broken = inProcessUpstream('broken', () => {
      const server = new Server({ name: 'broken', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/list', () => {
        throw new Error('the tool database is offline');
      });
      return server;
    });
    const started = await startGateway([broken, toolServer('files', { read: 'Reads.' })]);
    cleanups.push(started.close);
    const client = await connectInProcess(started.gateway);
    cleanups.push(client.close);
    expect((await client.client.listTools()).tools.map((t) => t.name)).toEqual(['files__read']);
    await started.gateway.reconcile([broken, toolServer('files', { read: 'Reads.', write: 'Writes.' })]);
    await eventually('the new tool', async () =>
      (await client.client.listTools()).tools.length === 2 ? true : undefined,
    );
    expect(started.log.filter((line) => line.includes('broken'))).toEqual([
      'cannot list the tools of server "broken": the tool database is offline; left out until it lists them',
    ]);
  });
});
