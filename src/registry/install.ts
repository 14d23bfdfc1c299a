import { resolve } from 'node:path';
import { type ServerEntry, sanitizeName } from '../config/index.js';
import { McpkitError } from '../errors/index.js';
import { installBundle, type OpenedBundle, openBundle, readBundleBytes } from './bundle.js';
import { bundleEntry, bundleInputs } from './bundle-manifest.js';
import type { BundleSignature } from './bundle-signature.js';
import { packageInputs, remoteInputs } from './entry-inputs.js';
import { type AskInput, type InputSpec, resolveInputs } from './inputs.js';
import { chooseInstallable, packageEntry, remoteEntry } from './package-entry.js';
import type { EntrySource } from './provenance.js';
import type { RegistryClient } from './registry-client.js';
import { OFFICIAL_META, type ServerResponse, statusOf } from './server-json.js';

/** Options for {@link entryFromRegistry} and {@link entryFromBundle}. */
export interface InstallOptions {
  /** `--set KEY=VALUE` values, by input key. */
  given: Readonly<Record<string, string>>;
  /** Values decided before (`mcpkit update`: the entry's remembered inputs and its env and headers). */
  previous?: Readonly<Record<string, string>>;
  /** Asks for an input on a terminal; without it only `--set` and defaults count. */
  ask?: AskInput;
  /** Secrets as `${VAR}` references (true for a project file). */
  secretsAsReferences: boolean;
  /** Where bundles are unpacked (see `userDataDir`). */
  dataDir: string;
  /** Relative bundle paths are resolved against it. */
  cwd: string;
  signal?: AbortSignal;
}

/** What `add` writes: the suggested server name, the entry (with its `source`), and notes for the user. */
export interface InstalledEntry {
  name: string;
  entry: ServerEntry;
  /** How it runs, for the "Added …" line: `npm @scope/pkg@1.2.0`, `remote streamable-http`, `bundle x 1.0.0`. */
  how: string;
  notes: string[];
}

/**
 * Builds the config entry of a registry server (its latest version unless `version`): picks its package or
 * remote, decides every input, unpacks an mcpb package, and records where it came from.
 */
export async function entryFromRegistry(
  client: RegistryClient,
  name: string,
  options: InstallOptions,
  version?: string,
): Promise<InstalledEntry> {
  return entryFromServer(await client.get(name, version), client.url, options);
}

/** {@link entryFromRegistry} for an answer already fetched (`mcpkit update` compares it first). */
export async function entryFromServer(
  item: ServerResponse,
  registry: string,
  options: InstallOptions,
): Promise<InstalledEntry> {
  const server = item.server;
  const chosen = chooseInstallable(server);
  const notes: string[] = [];
  if (statusOf(item) !== 'active') {
    const said = item._meta?.[OFFICIAL_META]?.statusMessage;
    notes.push(`${server.name} ${server.version} is ${statusOf(item)}${said ? `: ${said}` : ''}`);
  }
  const source: EntrySource = { registry, name: server.name, version: server.version };
  const subject = `${server.name} ${server.version}`;
  if (chosen.kind === 'remote') {
    const inputs = await decide(remoteInputs(chosen.remote), subject, options, notes);
    const entry = {
      ...remoteEntry(chosen.remote, inputs.values),
      source: withInputs(source, inputs.remembered),
    };
    return { name: localName(server.name), entry, how: `remote ${chosen.remote.type} ${entry.url}`, notes };
  }
  const pkg = chosen.package;
  if (pkg.registryType === 'mcpb') {
    const bytes = await readBundleBytes(pkg.identifier, options.cwd, options.signal);
    const bundle = await openBundle(bytes, pkg.identifier, pkg.fileSha256);
    if (pkg.version !== undefined && bundle.manifest.version !== pkg.version) {
      throw new McpkitError(
        'CONFIG_INVALID',
        `bundle ${pkg.identifier}: its manifest says version ${bundle.manifest.version}, the registry says ${pkg.version}; nothing written`,
      );
    }
    const installed = await fromBundle(bundle, subject, options, notes);
    installed.entry.source = withInputs({ ...source, sha256: bundle.sha256 }, installed.remembered);
    return { name: localName(server.name), entry: installed.entry, how: installed.how, notes };
  }
  const inputs = await decide(packageInputs(pkg), subject, options, notes);
  const entry = { ...packageEntry(pkg, inputs.values), source: withInputs(source, inputs.remembered) };
  return {
    name: localName(server.name),
    entry,
    how: `${pkg.registryType} ${pkg.identifier}${pkg.version ? ` ${pkg.version}` : ''}`,
    notes,
  };
}

/** Builds the entry of a `.mcpb` file or URL: checked, unpacked into the data dir, its `user_config` decided. */
export async function entryFromBundle(source: string, options: InstallOptions): Promise<InstalledEntry> {
  const where = /^https?:\/\//i.test(source) ? source : resolve(options.cwd, source);
  const bundle = await openBundle(await readBundleBytes(where, options.cwd, options.signal), source);
  const notes: string[] = [];
  const subject = `bundle ${bundle.manifest.name} ${bundle.manifest.version}`;
  const installed = await fromBundle(bundle, subject, options, notes);
  installed.entry.source = withInputs(
    { bundle: where, version: bundle.manifest.version, sha256: bundle.sha256 },
    installed.remembered,
  );
  return { name: localName(bundle.manifest.name), entry: installed.entry, how: installed.how, notes };
}

async function fromBundle(bundle: OpenedBundle, subject: string, options: InstallOptions, notes: string[]) {
  const inputs = await decide(bundleInputs(bundle.manifest), subject, options, notes);
  const dir = await installBundle(bundle, options.dataDir);
  notes.push(signatureNote(bundle.signature));
  const entry: ServerEntry = bundleEntry(bundle.manifest, dir, inputs.values);
  return {
    entry,
    remembered: inputs.remembered,
    how: `bundle ${bundle.manifest.name} ${bundle.manifest.version} (${dir})`,
  };
}

/** The note `add` prints about a bundle's signature (one that does not hold never gets here). */
function signatureNote(signature: BundleSignature): string {
  if (signature.status === 'unsigned') return 'the bundle is not signed: nothing says who made it';
  const signed = `the bundle is signed by ${signature.subject}`;
  if (signature.trust === 'trusted') return `${signed} (issued by ${signature.issuer}, a trusted authority)`;
  const cert = {
    'self-signed': 'a self-signed certificate',
    'unknown issuer': `a certificate from ${signature.issuer}, which is not a trusted authority`,
    expired: `a certificate from ${signature.issuer} that expired on ${signature.validTo}`,
    'not for code signing': `a certificate from ${signature.issuer} that is not for code signing`,
  }[signature.trust];
  return `${signed} with ${cert}: the file is unchanged since that key signed it, but nothing vouches for who holds the key (SHA-256 ${signature.fingerprint})`;
}

async function decide(specs: InputSpec[], subject: string, options: InstallOptions, notes: string[]) {
  const resolved = await resolveInputs(specs, {
    given: options.given,
    secretsAsReferences: options.secretsAsReferences,
    subject,
    ...(options.previous ? { previous: options.previous } : {}),
    ...(options.ask ? { ask: options.ask } : {}),
  });
  notes.push(...resolved.notes);
  return resolved;
}

function withInputs(source: EntrySource, remembered: Record<string, string>): EntrySource {
  return Object.keys(remembered).length > 0 ? { ...source, inputs: remembered } : source;
}

/** The server name an entry gets by default: the part after the slash (`io.github.o/weather` → `weather`). */
export function localName(registryName: string): string {
  return sanitizeName(registryName.split('/').at(-1) ?? registryName);
}
