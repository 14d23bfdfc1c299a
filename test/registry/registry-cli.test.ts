import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packExtension } from '@anthropic-ai/mcpb/cli';
import { zipSync } from 'fflate';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../config/run-in-process.js';
import { createWorkspace, type Workspace } from '../helpers/cli.js';
import { entries } from './entries.js';
import { startFakeRegistry, version } from './fake-registry.js';

const GREETER = fileURLToPath(new URL('../fixtures/registry/greeter', import.meta.url));

let registry: Awaited<ReturnType<typeof startFakeRegistry>>;
let bundleFile: string;
let bundleDir: string;
let ws: Workspace;

const mcpkit = (args: string[], env: Record<string, string> = {}) =>
  runInProcess(ws, args, {
    MCPKIT_REGISTRY_URL: registry.url,
    MCPKIT_DATA_DIR: join(ws.root, 'data'),
    ...env,
  });
const projectFile = async () => JSON.parse(await readFile(join(ws.project, '.mcp.json'), 'utf8'));

beforeAll(async () => {
  // The bundle is built by the real packer, as a publisher builds one (no network).
  bundleDir = await mkdtemp(join(tmpdir(), 'mcpkit-mcpb-'));
  await cp(GREETER, join(bundleDir, 'greeter'), { recursive: true });
  bundleFile = join(bundleDir, 'greeter.mcpb');
  expect(
    await packExtension({ extensionPath: join(bundleDir, 'greeter'), outputPath: bundleFile, silent: true }),
  ).toBe(true);
  const bytes = await readFile(bundleFile);
  registry = await startFakeRegistry([], { 'greeter.mcpb': bytes });
  registry.state.versions.push(...entries(registry.url, createHash('sha256').update(bytes).digest('hex')));
});
afterAll(async () => {
  await registry.close();
  await rm(bundleDir, { recursive: true, force: true });
});
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

describe('mcpkit find / show', () => {
  it('lists the latest version of each match, following the cursor, deprecated ones marked', async () => {
    const { code, stdout, stderr } = await mcpkit(['find', 'acme']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+VERSION\s+RUNS\s+STATUS\s+DESCRIPTION$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 4))).toEqual([
      ['io.github.acme/weather', '1.2.0', 'npx', 'active'],
      ['io.github.acme/py-tools', '0.4.0', 'uvx', 'active'],
      ['io.github.acme/dockerized', '2.0.0', 'docker', 'active'],
      ['io.github.acme/old-thing', '0.9.0', 'npx', 'deprecated'],
      ['io.github.acme/no-package', '1.0.0', 'cargo', 'active'],
      ['io.github.acme/bundled', '1.0.0', 'mcpb', 'active'],
    ]);
    // Six servers at two a page: three pages, each asked with the previous page's cursor.
    const pages = registry.state.requests.filter(
      (r) => r.startsWith('/v0.1/servers?') && r.includes('search=acme'),
    );
    expect(pages.slice(-3).map((p) => new URLSearchParams(p.split('?')[1]).get('cursor'))).toEqual([
      null,
      '2',
      '4',
    ]);
    expect(pages.at(-1)).toContain('version=latest');
  });

  it('prints JSON with --json and says so when nothing matches', async () => {
    const json = await mcpkit(['find', 'hosted', '--json']);
    expect(JSON.parse(json.stdout).map((s: { server: { name: string } }) => s.server.name)).toEqual([
      'com.example/hosted',
    ]);
    const none = await mcpkit(['find', 'nothing-like-this']);
    expect(none.stdout).toBe(`No servers matching "nothing-like-this" in ${registry.url}\n`);
  });

  it('shows a whole entry: package, arguments, variables, secrets', async () => {
    const { code, stdout } = await mcpkit(['show', 'io.github.acme/weather']);
    expect(code).toBe(0);
    expect(stdout).toContain('io.github.acme/weather 1.2.0  Weather  (active)');
    expect(stdout).toContain('  package npm @acme/weather-mcp 1.2.0 (stdio)');
    expect(stdout).toContain('    env WEATHER_API_KEY  required, secret  API key');
    expect(stdout).toContain('    flag --units  optional, default metric, one of metric, imperial  Units');
    expect(stdout).toContain('  add it: mcpkit add io.github.acme/weather');
    const older = await mcpkit(['show', 'io.github.acme/weather', '--at', '1.1.0']);
    expect(older.stdout.split('\n')[0]).toBe('io.github.acme/weather 1.1.0  (active)');
  });
});

describe('mcpkit add <registry name>', () => {
  it('npm: pinned npx command, defaults applied, the secret as ${VAR}, provenance kept', async () => {
    const { code, stdout, stderr } = await mcpkit([
      'add',
      'io.github.acme/weather',
      '--set',
      'WEATHER_API_KEY=sk-live-not-written',
    ]);
    expect(code).toBe(0);
    expect(stdout).toBe(
      `Added server "weather" (npm @acme/weather-mcp 1.2.0) in project scope (${join(ws.project, '.mcp.json')})\n`,
    );
    expect(stderr).toContain(
      'environment variable WEATHER_API_KEY is a secret: the entry reads it from ${WEATHER_API_KEY}',
    );
    const text = await readFile(join(ws.project, '.mcp.json'), 'utf8');
    expect(text).not.toContain('sk-live-not-written');
    expect(JSON.parse(text).mcpServers.weather).toEqual({
      command: 'npx',
      args: ['-y', '@acme/weather-mcp@1.2.0', '--units', 'metric'],
      env: { WEATHER_API_KEY: '${WEATHER_API_KEY}', WEATHER_REGION: 'eu' },
      source: {
        registry: registry.url,
        name: 'io.github.acme/weather',
        version: '1.2.0',
        inputs: { units: 'metric', WEATHER_REGION: 'eu' },
      },
    });
  });

  it('pypi: uvx pkg==ver with the required argument from --set; missing it is one line, nothing written', async () => {
    const missing = await mcpkit(['add', 'io.github.acme/py-tools']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      'mcpkit: io.github.acme/py-tools 0.4.0 needs argument root_dir: give --set root_dir=<Root folder> (or run on a terminal to be asked); nothing written\n',
    );
    const added = await mcpkit([
      'add',
      'io.github.acme/py-tools',
      '--set',
      'root_dir=/srv/data',
      '--as',
      'pytools',
    ]);
    expect(added.code).toBe(0);
    expect((await projectFile()).mcpServers.pytools).toMatchObject({
      command: 'uvx',
      args: ['acme-py-tools==0.4.0', '/srv/data'],
    });
  });

  it('oci: docker run -i --rm with the image tag and env passed in', async () => {
    expect((await mcpkit(['add', 'io.github.acme/dockerized'])).code).toBe(0);
    expect((await projectFile()).mcpServers.dockerized).toMatchObject({
      command: 'docker',
      args: ['run', '-i', '--rm', '-e', 'LOG_LEVEL', 'ghcr.io/acme/dockerized:2.0.0'],
      env: { LOG_LEVEL: 'info' },
    });
  });

  it('remote: URL variables filled, headers with the secret as ${VAR}', async () => {
    const { code } = await mcpkit(['add', 'com.example/hosted', '--set', 'tenant=acme']);
    expect(code).toBe(0);
    expect((await projectFile()).mcpServers.hosted).toMatchObject({
      type: 'http',
      url: 'https://acme.example.com/mcp',
      headers: { Authorization: 'Bearer ${API_TOKEN}', 'X-Client': 'mcpkit' },
    });
  });

  it('a deprecated entry is added with a note saying so', async () => {
    const { code, stderr } = await mcpkit(['add', 'io.github.acme/old-thing']);
    expect(code).toBe(0);
    expect(stderr).toBe('note: io.github.acme/old-thing 0.9.0 is deprecated: use io.github.acme/weather\n');
  });

  it('an mcpb package: downloaded, its SHA-256 checked, unpacked into the data dir', async () => {
    const { code, stdout } = await mcpkit(['add', 'io.github.acme/bundled', '--set', 'greeting=Hi']);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^Added server "bundled" \(bundle greeter 1\.0\.0 \(.*data\/bundles\/greeter-1\.0\.0-[0-9a-f]{12}\)\)/,
    );
    const entry = (await projectFile()).mcpServers.bundled;
    expect(entry.command).toBe('node');
    expect(await readFile(entry.args[0], 'utf8')).toContain('minimal MCP server');
  });
});

describe('mcpkit add ./x.mcpb', () => {
  it('unpacks a bundle built by mcpb pack, asks its user_config, and the server runs', async () => {
    const added = await mcpkit(['add', bundleFile, '--set', 'greeting=Hello']);
    expect(added.code).toBe(0);
    const entry = (await projectFile()).mcpServers.greeter;
    expect(entry.env).toEqual({ GREETING: 'Hello', GREETER_TOKEN: '${TOKEN}' });
    expect(entry.source).toMatchObject({ bundle: bundleFile, version: '1.0.0' });
    const call = await mcpkit(['call', 'greeter', 'greet', '{"name":"Ada"}'], { TOKEN: 'from-env' });
    expect(call.stderr).toBe('');
    expect(call.stdout).toBe('Hello, Ada (token set)\n');
  });

  it('refuses a bundle whose manifest names an entry point it does not hold', async () => {
    const manifest = JSON.parse(await readFile(join(GREETER, 'manifest.json'), 'utf8'));
    manifest.server.entry_point = 'server/missing.js';
    const liar = join(ws.root, 'liar.mcpb');
    await writeFile(
      liar,
      zipSync({ 'manifest.json': Buffer.from(JSON.stringify(manifest)), 'server/index.js': Buffer.from('') }),
    );
    const { code, stderr } = await mcpkit(['add', liar]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `mcpkit: bundle ${liar}: manifest.json names entry point "server/missing.js", which is not in the bundle; nothing written\n`,
    );
  });
});

describe('mcpkit outdated / update', () => {
  it('lists a moved version and update moves the pin, showing the diff', async () => {
    await mcpkit(['add', 'io.github.acme/weather']);
    expect((await mcpkit(['outdated'])).stdout).toBe('The 1 server from a registry is up to date.\n');
    const next = version({
      name: 'io.github.acme/weather',
      description: 'Weather forecasts',
      version: '1.3.0',
      packages: [
        {
          registryType: 'npm',
          identifier: '@acme/weather-mcp',
          version: '1.3.0',
          transport: { type: 'stdio' },
          packageArguments: [{ type: 'named', name: '--units', default: 'metric' }],
          environmentVariables: [
            { name: 'WEATHER_API_KEY', isRequired: true, isSecret: true },
            { name: 'WEATHER_REGION', default: 'us' },
          ],
        },
      ],
    });
    const before = registry.state.versions.map((v) => v);
    for (const v of registry.state.versions)
      if (v.server.name === 'io.github.acme/weather')
        (v._meta['io.modelcontextprotocol.registry/official'] as { isLatest: boolean }).isLatest = false;
    registry.state.versions.push(next);
    try {
      const outdated = await mcpkit(['outdated']);
      expect(outdated.stdout).toBe(
        'NAME     SCOPE    CURRENT  LATEST  REGISTRY NAME\nweather  project  1.2.0    1.3.0   io.github.acme/weather\nMove a pin with: mcpkit update <name>\n',
      );
      const update = await mcpkit(['update', 'weather']);
      expect(update.code).toBe(0);
      expect(update.stdout).toContain('Updated "weather" 1.2.0 → 1.3.0 in project scope');
      expect(update.stdout).toContain('  - "@acme/weather-mcp@1.2.0",\n');
      expect(update.stdout).toContain('  + "@acme/weather-mcp@1.3.0",\n');
      const entry = (await projectFile()).mcpServers.weather;
      expect(entry.args).toEqual(['-y', '@acme/weather-mcp@1.3.0', '--units', 'metric']);
      // The value decided at add time is kept; the secret stays a reference.
      expect(entry.env).toEqual({ WEATHER_API_KEY: '${WEATHER_API_KEY}', WEATHER_REGION: 'eu' });
      expect((await mcpkit(['outdated'])).stdout).toBe('The 1 server from a registry is up to date.\n');
    } finally {
      registry.state.versions.splice(0, registry.state.versions.length, ...before);
      for (const v of before)
        if (v.server.name === 'io.github.acme/weather')
          (v._meta['io.modelcontextprotocol.registry/official'] as { isLatest: boolean }).isLatest =
            v.server.version === '1.2.0';
    }
  });
});

describe('bad input is one line', () => {
  it('flags of the other kind of add', async () => {
    const env = await mcpkit(['add', 'io.github.acme/weather', '-e', 'WEATHER_API_KEY=x']);
    expect(env.code).toBe(2);
    expect(env.stderr).toBe(
      "mcpkit: add io.github.acme/weather: --env is for a command or URL; give the entry's inputs with --set KEY=VALUE\n",
    );
    const set = await mcpkit(['add', 'local', '--set', 'A=1', '--', 'node', 'x.js']);
    expect(set.stderr).toBe(
      'mcpkit: --set, --registry and --as are for adding by registry name or .mcpb bundle\n',
    );
  });

  it('an unknown name', async () => {
    const { code, stderr } = await mcpkit(['add', 'io.github.acme/nope']);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `mcpkit: server "io.github.acme/nope" is not in the registry ${registry.url}; search for it with "mcpkit find <words>"\n`,
    );
  });

  it('a registry that is down', async () => {
    const down = await startFakeRegistry([]);
    await down.close();
    const { code, stderr } = await mcpkit(['find', 'x', '--registry', down.url]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `mcpkit: the registry ${down.url} did not answer for the server list: connection refused at ${down.url.slice(7)}; check --registry (or MCPKIT_REGISTRY_URL)\n`,
    );
  });

  it('a registry that answers HTML', async () => {
    const html = await startFakeRegistry([]);
    html.state.html = true;
    try {
      const { code, stderr } = await mcpkit(['show', 'io.github.acme/weather'], {
        MCPKIT_REGISTRY_URL: html.url,
      });
      expect(code).toBe(1);
      expect(stderr).toBe(
        `mcpkit: the registry ${html.url} answered text/html, not JSON, for server "io.github.acme/weather": is it an MCP Registry (GET ${html.url}/v0.1/servers)?\n`,
      );
    } finally {
      await html.close();
    }
  });

  it('an entry missing a package mcpkit can run', async () => {
    const { code, stderr } = await mcpkit(['add', 'io.github.acme/no-package']);
    expect(code).toBe(1);
    expect(stderr).toBe(
      'mcpkit: io.github.acme/no-package 1.0.0 has no package mcpkit can run (npm, pypi, oci, nuget or mcpb over stdio) and no remote (it has cargo package over stdio); nothing written\n',
    );
  });

  it('an entry with no package and no remote, and an mcpb package whose manifest lies about its version', async () => {
    const bundle = registry.state.versions.find((v) => v.server.name === 'io.github.acme/bundled');
    const packages = bundle?.server.packages as Record<string, unknown>[];
    const extra = [
      version({ name: 'io.github.acme/empty', description: 'Nothing to run', version: '1.0.0' }),
      version({
        name: 'io.github.acme/liar',
        description: 'Says 2.0.0, ships 1.0.0',
        version: '2.0.0',
        packages: [{ ...packages[0], version: '2.0.0' }],
      }),
    ];
    registry.state.versions.push(...extra);
    try {
      const empty = await mcpkit(['add', 'io.github.acme/empty']);
      expect(empty.code).toBe(1);
      expect(empty.stderr).toBe(
        'mcpkit: io.github.acme/empty 1.0.0 has no package mcpkit can run (npm, pypi, oci, nuget or mcpb over stdio) and no remote (it has nothing); nothing written\n',
      );
      const liar = await mcpkit(['add', 'io.github.acme/liar', '--set', 'greeting=Hi']);
      expect(liar.code).toBe(1);
      expect(liar.stderr).toBe(
        `mcpkit: bundle ${registry.url}/files/greeter.mcpb: its manifest says version 1.0.0, the registry says 2.0.0; nothing written\n`,
      );
      await expect(readFile(join(ws.project, '.mcp.json'))).rejects.toThrow('ENOENT');
    } finally {
      registry.state.versions.splice(registry.state.versions.length - extra.length);
    }
  });
});
