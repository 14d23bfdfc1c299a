import { describe, expect, expectTypeOf, it } from 'vitest';

// The package as users import it: by name, through its `exports` map, from the built dist/.
describe('public API', () => {
  it('exposes each capability on its subpath and everything on the root', async () => {
    const root = await import('mcpkit');
    const config = await import('mcpkit/config');
    const client = await import('mcpkit/client');
    const check = await import('mcpkit/check');
    const gateway = await import('mcpkit/gateway');
    const search = await import('mcpkit/search');
    const registry = await import('mcpkit/registry');
    expect(typeof gateway.Gateway.create).toBe('function');
    expect(search.tokenize('readFileSync')).toEqual(['readfilesync', 'read', 'file', 'sync']);
    expect(typeof config.loadConfig).toBe('function');
    expect(typeof client.Runtime.create).toBe('function');
    expect(typeof check.runCheck).toBe('function');
    expect(registry.localName('io.github.acme/weather')).toBe('weather');
    expect(registry.DEFAULT_REGISTRY_URL).toBe('https://registry.modelcontextprotocol.io');
    expect(root.createRegistryClient).toBe(registry.createRegistryClient);
    expect(config.userDataDir({ MCPKIT_DATA_DIR: '/d' })).toBe('/d');
    expect(root.Runtime).toBe(client.Runtime);
    const errors = await import('mcpkit/errors');
    expect(root.McpkitError).toBe(errors.McpkitError);
    expect('McpkitError' in config).toBe(false);
    // A server is a read-only handle; the connection behind it is internal.
    expect('ServerConnection' in client).toBe(false);
  });

  it('has the documented types', async () => {
    const { Runtime } = await import('../src/client/index.js');
    const { parseServerEntry } = await import('../src/config/index.js');
    type RuntimeInstance = Awaited<ReturnType<typeof Runtime.create>>;
    expectTypeOf<RuntimeInstance['close']>().returns.resolves.toBeVoid();
    expectTypeOf(parseServerEntry).parameter(0).toBeUnknown();
    type Status = ReturnType<RuntimeInstance['server']>['status'];
    expectTypeOf<Status>().toEqualTypeOf<'starting' | 'ready' | 'failed' | 'stopped'>();
    type Handle = import('../src/client/index.js').ServerHandle;
    expectTypeOf<ReturnType<RuntimeInstance['server']>>().toEqualTypeOf<Handle>();
    expectTypeOf<ReturnType<RuntimeInstance['relay']>>().toEqualTypeOf<
      import('../src/client/index.js').RawRelayPort | undefined
    >();
    expectTypeOf<Handle>().not.toHaveProperty('close');
  });
});
