import type { RemoteServer, ServerEntry, StdioServer } from '../config/index.js';
import { McpkitError } from '../errors/index.js';
import { argumentKey } from './entry-inputs.js';
import { fillTemplate } from './inputs.js';
import type {
  RegistryArgument,
  RegistryKeyValue,
  RegistryPackage,
  RegistryRemote,
  ServerDetail,
} from './server-json.js';

/** The package types mcpkit turns into a command line, in the order it prefers them. */
export const RUNNABLE_PACKAGES = ['npm', 'pypi', 'oci', 'nuget', 'mcpb'] as const;

/** What `add` installs from an entry: one of its packages, or one of its remotes. */
export type Installable =
  | { kind: 'package'; package: RegistryPackage }
  | { kind: 'remote'; remote: RegistryRemote };

/**
 * Picks what to install: the first package mcpkit can run over stdio, else the first remote. An entry with
 * neither fails in one line naming what it has.
 */
export function chooseInstallable(server: ServerDetail): Installable {
  const packages = server.packages ?? [];
  for (const type of RUNNABLE_PACKAGES) {
    const found = packages.find((p) => p.registryType === type && p.transport.type === 'stdio');
    if (found) return { kind: 'package', package: found };
  }
  const remote = (server.remotes ?? []).find((r) => r.type === 'streamable-http' || r.type === 'sse');
  if (remote) return { kind: 'remote', remote };
  const has = [
    ...packages.map((p) => `${p.registryType} package over ${p.transport.type}`),
    ...(server.remotes ?? []).map((r) => `${r.type} remote`),
  ];
  throw new McpkitError(
    'CONFIG_INVALID',
    `${server.name} ${server.version} has no package mcpkit can run (npm, pypi, oci, nuget or mcpb over stdio) and no remote (it has ${has.join(', ') || 'nothing'}); nothing written`,
  );
}

/** The command line of a package: `npx -y pkg@ver`, `uvx pkg==ver`, `docker run -i --rm image:tag`, `dnx pkg@ver`. */
export function packageEntry(pkg: RegistryPackage, values: ReadonlyMap<string, string>): StdioServer {
  const runtime = argv(pkg.runtimeArguments, values);
  const rest = argv(pkg.packageArguments, values);
  const env = environment(pkg.environmentVariables, values);
  const version = pkg.version;
  const pinned = (sep: string) => (version ? `${pkg.identifier}${sep}${version}` : pkg.identifier);
  let command: string;
  let args: string[];
  switch (pkg.registryType) {
    case 'npm':
      command = 'npx';
      args = ['-y', ...runtime, pinned('@'), ...rest];
      break;
    case 'pypi':
      command = 'uvx';
      args = [...runtime, pinned('=='), ...rest];
      break;
    case 'oci': {
      // The container sees only what `-e NAME` passes in from docker's own environment (the entry's env).
      const passEnv = Object.keys(env).flatMap((name) => ['-e', name]);
      command = 'docker';
      args = ['run', '-i', '--rm', ...runtime, ...passEnv, imageReference(pkg), ...rest];
      break;
    }
    case 'nuget':
      command = 'dnx';
      args = [...runtime, pinned('@'), '--yes', ...(rest.length > 0 ? ['--', ...rest] : [])];
      break;
    default:
      throw new McpkitError('CONFIG_INVALID', `mcpkit cannot run a ${pkg.registryType} package here`);
  }
  return { command, args, ...(Object.keys(env).length > 0 ? { env } : {}) };
}

/** The entry of a remote: its URL with variables filled, its transport, its headers. */
export function remoteEntry(remote: RegistryRemote, values: ReadonlyMap<string, string>): RemoteServer {
  const headers = Object.fromEntries(
    (remote.headers ?? []).flatMap((h) => {
      const value = keyValue(h, values);
      return value === undefined ? [] : [[h.name, value]];
    }),
  );
  const entry: ServerEntry = {
    type: remote.type === 'sse' ? 'sse' : 'http',
    url: fillTemplate(remote.url, values),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
  };
  return entry;
}

/** An OCI image with its tag: the identifier's own tag or digest, else `:version`. */
function imageReference(pkg: RegistryPackage): string {
  const last = pkg.identifier.split('/').at(-1) ?? '';
  if (last.includes(':') || last.includes('@') || !pkg.version) return pkg.identifier;
  return `${pkg.identifier}:${pkg.version}`;
}

/** Arguments as argv words: a positional's value, a named one's flag and value; unset optional ones left out. */
function argv(args: readonly RegistryArgument[] | undefined, values: ReadonlyMap<string, string>): string[] {
  const words: string[] = [];
  for (const arg of args ?? []) {
    const value = arg.value !== undefined ? fillTemplate(arg.value, values) : values.get(argumentKey(arg));
    if (arg.type === 'named') {
      if (!arg.name) continue;
      if (value === undefined) continue;
      // A boolean flag given as "true" is the bare flag.
      if (arg.format === 'boolean') {
        if (value === 'true') words.push(arg.name);
        continue;
      }
      words.push(arg.name, value);
    } else if (value !== undefined) words.push(value);
  }
  return words;
}

function environment(
  vars: readonly RegistryKeyValue[] | undefined,
  values: ReadonlyMap<string, string>,
): Record<string, string> {
  return Object.fromEntries(
    (vars ?? []).flatMap((v) => {
      const value = keyValue(v, values);
      return value === undefined ? [] : [[v.name, value]];
    }),
  );
}

function keyValue(item: RegistryKeyValue, values: ReadonlyMap<string, string>): string | undefined {
  return item.value !== undefined ? fillTemplate(item.value, values) : values.get(item.name);
}

const RUNNERS: Record<string, string> = {
  npm: 'npx',
  pypi: 'uvx',
  oci: 'docker',
  nuget: 'dnx',
  mcpb: 'mcpb',
};

/** How an entry would run, in one word per way (`npx`, `uvx`, `docker`, `dnx`, `mcpb`, `remote`), for listings. */
export function runsWith(server: ServerDetail): string[] {
  const ways = (server.packages ?? []).map((p) => RUNNERS[p.registryType] ?? p.registryType);
  if ((server.remotes ?? []).length > 0) ways.push('remote');
  return [...new Set(ways)];
}
