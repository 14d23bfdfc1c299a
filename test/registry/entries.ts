import { version } from './fake-registry.js';

/** Registry entries shaped like the published server.json (2025-12-11): one of each kind, and the odd ones. */
export function entries(base: string, bundleSha: string) {
  return [
    version(
      {
        name: 'io.github.acme/weather',
        description: 'Weather forecasts',
        version: '1.1.0',
        packages: [
          {
            registryType: 'npm',
            identifier: '@acme/weather-mcp',
            version: '1.1.0',
            transport: { type: 'stdio' },
          },
        ],
      },
      { isLatest: false },
    ),
    version({
      name: 'io.github.acme/weather',
      description: 'Weather forecasts',
      title: 'Weather',
      version: '1.2.0',
      // A field a later schema adds: ignored, never an error.
      futureField: { rollout: 'canary' },
      repository: { url: 'https://github.com/acme/weather', source: 'github' },
      packages: [
        {
          registryType: 'npm',
          registryBaseUrl: 'https://registry.npmjs.org',
          identifier: '@acme/weather-mcp',
          version: '1.2.0',
          transport: { type: 'stdio' },
          sandboxHints: ['net'],
          packageArguments: [
            {
              type: 'named',
              name: '--units',
              default: 'metric',
              choices: ['metric', 'imperial'],
              description: 'Units',
            },
          ],
          environmentVariables: [
            { name: 'WEATHER_API_KEY', description: 'API key', isRequired: true, isSecret: true },
            { name: 'WEATHER_REGION', description: 'Region', default: 'eu' },
          ],
        },
      ],
    }),
    version({
      name: 'io.github.acme/py-tools',
      description: 'Python tools',
      version: '0.4.0',
      packages: [
        {
          registryType: 'pypi',
          identifier: 'acme-py-tools',
          version: '0.4.0',
          transport: { type: 'stdio' },
          packageArguments: [
            { type: 'positional', valueHint: 'root_dir', description: 'Root folder', isRequired: true },
          ],
        },
      ],
    }),
    version({
      name: 'io.github.acme/dockerized',
      description: 'In a container',
      version: '2.0.0',
      packages: [
        {
          registryType: 'oci',
          identifier: 'ghcr.io/acme/dockerized:2.0.0',
          transport: { type: 'stdio' },
          environmentVariables: [{ name: 'LOG_LEVEL', default: 'info' }],
        },
      ],
    }),
    version({
      name: 'com.example/hosted',
      description: 'A hosted server',
      version: '3.0.0',
      remotes: [
        {
          type: 'streamable-http',
          url: 'https://{tenant}.example.com/mcp',
          variables: { tenant: { description: 'Your tenant', isRequired: true } },
          headers: [
            {
              name: 'Authorization',
              value: 'Bearer {api_token}',
              variables: { api_token: { description: 'API token', isRequired: true, isSecret: true } },
            },
            { name: 'X-Client', default: 'mcpkit' },
          ],
        },
      ],
    }),
    version(
      {
        name: 'io.github.acme/old-thing',
        description: 'Superseded',
        version: '0.9.0',
        packages: [
          { registryType: 'npm', identifier: 'old-thing', version: '0.9.0', transport: { type: 'stdio' } },
        ],
      },
      { status: 'deprecated', statusMessage: 'use io.github.acme/weather' },
    ),
    version({
      name: 'io.github.acme/no-package',
      description: 'Only a crate',
      version: '1.0.0',
      packages: [
        { registryType: 'cargo', identifier: 'acme-crate', version: '1.0.0', transport: { type: 'stdio' } },
      ],
    }),
    version({
      name: 'io.github.acme/bundled',
      description: 'A greeter as an MCP bundle',
      version: '1.0.0',
      packages: [
        {
          registryType: 'mcpb',
          identifier: `${base}/files/greeter.mcpb`,
          version: '1.0.0',
          fileSha256: bundleSha,
          transport: { type: 'stdio' },
        },
      ],
    }),
  ];
}
