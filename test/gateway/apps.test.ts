import { InMemoryTransport } from '@modelcontextprotocol/client';
import { App } from '@modelcontextprotocol/ext-apps';
import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import { describe, expect, it } from 'vitest';
import { appUpstream } from '../helpers/extension-servers.js';
import { clientOf, gatewayOf, textOf } from '../helpers/gateway.js';

// MCP Apps (ext-apps) behind the gateway: two upstreams built with ext-apps' server helpers, each with a tool
// naming the same page, `ui://clock/app.html`. The gateway lists and reads each page under its server's
// prefix, rewrites the tools' `_meta` to match, and the app's calls back reach the server it came from.

async function appsThrough() {
  const { gateway } = await gatewayOf([appUpstream('one', 'modern'), appUpstream('two', 'legacy')]);
  return clientOf(gateway);
}

describe('MCP Apps through the gateway', () => {
  it("rewrites each tool's page URI, under both keys, to its namespaced one", async () => {
    const { client } = await appsThrough();
    const tools = Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t._meta]));
    expect(tools['one__show-clock']).toEqual({
      ui: { resourceUri: 'ui://one/clock/app.html' },
      'ui/resourceUri': 'ui://one/clock/app.html',
    });
    expect(tools['two__tick']).toEqual({
      ui: { resourceUri: 'ui://two/clock/app.html', visibility: ['app'] },
      'ui/resourceUri': 'ui://two/clock/app.html',
    });
  }, 30_000);

  it('lists both pages and reads each from its own upstream', async () => {
    const { client } = await appsThrough();
    const pages = (await client.listResources()).resources.filter((r) => r.uri.startsWith('ui://'));
    expect(pages.map((r) => [r.uri, r.mimeType, r.description])).toEqual([
      ['ui://one/clock/app.html', 'text/html;profile=mcp-app', 'The clock of one.'],
      ['ui://two/clock/app.html', 'text/html;profile=mcp-app', 'The clock of two.'],
    ]);
    for (const server of ['one', 'two']) {
      const uri = `ui://${server}/clock/app.html`;
      const { contents } = await client.readResource({ uri });
      expect(contents).toEqual([
        {
          uri,
          mimeType: 'text/html;profile=mcp-app',
          text: `<!doctype html><title>${server}</title><p>clock of ${server}</p>`,
          _meta: { ui: { prefersBorder: true } },
        },
      ]);
    }
  }, 30_000);

  it("routes the app's calls back, made by the host under the exposed name, to the app's own server", async () => {
    const { client } = await appsThrough();
    const opened = await client.callTool({ name: 'two__show-clock', arguments: {} });
    expect(textOf(opened)).toBe('two: clock shown');
    // The host renders the page of `two__show-clock` and bridges its app: the app names its server's tool
    // (`tick`), the host calls it through the gateway under the exposed name of the server it came from.
    const bridge = new AppBridge(null, { name: 'test-host', version: '1' }, { serverTools: {} });
    bridge.oncalltool = (params) =>
      client.callTool({ ...params, name: `two__${params.name}` }) as ReturnType<
        NonNullable<AppBridge['oncalltool']>
      >;
    const [appSide, hostSide] = InMemoryTransport.createLinkedPair();
    await bridge.connect(hostSide);
    // Outside a browser: no size reports (they need requestAnimationFrame).
    const app = new App({ name: 'clock', version: '1' }, {}, { autoResize: false });
    await app.connect(appSide);
    try {
      expect(textOf(await app.callServerTool({ name: 'tick', arguments: {} }))).toBe('two: tick 1');
      expect(textOf(await app.callServerTool({ name: 'tick', arguments: {} }))).toBe('two: tick 2');
      expect(textOf(await client.callTool({ name: 'one__tick', arguments: {} }))).toBe('one: tick 1');
    } finally {
      await app.close();
      await bridge.close();
    }
  }, 30_000);
});
