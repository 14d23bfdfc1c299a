import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import type { Command } from 'commander';
import {
  addServers,
  configFile,
  findServer,
  loadConfig,
  maskEntry,
  type Scope,
  type ServerEntry,
  userDataDir,
} from '../config/index.js';
import { McpkitError } from '../errors/index.js';
import { readJsonDocument } from '../internal/json-document.js';
import {
  type AskInput,
  createRegistryClient,
  DEFAULT_REGISTRY_URL,
  entryFromBundle,
  entryFromRegistry,
  entryFromServer,
  type InstalledEntry,
  type InstallOptions,
  isBundleReference,
  OFFICIAL_META,
  type RegistryInput,
  registrySource,
  runsWith,
  type ServerResponse,
  statusOf,
} from '../registry/index.js';
import { table } from './format.js';
import type { CliIO } from './io.js';
import { collect, parseScope, positiveInteger, usage } from './options.js';
import { type SandboxFlags, withSandboxFlags } from './sandbox-flags.js';

/** `find`, `show`, `outdated`, `update`: servers from an MCP Registry (`add <registry name>` is in `add`). */
export function registerRegistryCommands(program: Command, io: CliIO): void {
  const registryOption = '--registry <url>';
  const registryHelp = `MCP Registry to ask (default: MCPKIT_REGISTRY_URL, the "registry" setting, else ${DEFAULT_REGISTRY_URL})`;

  program
    .command('find')
    .description('search an MCP Registry for servers by name')
    .argument('[words...]', 'what to look for in server names (none: list servers)')
    .option(registryOption, registryHelp)
    .option('--limit <n>', 'at most this many servers', positiveInteger('--limit'), 30)
    .option('--json', 'print the registry entries as JSON')
    .action(async (words: string[], opts: { registry?: string; limit: number; json?: boolean }) => {
      const client = createRegistryClient({ url: await registryUrl(io, opts.registry) });
      const found = await client.search(words.join(' '), { limit: opts.limit });
      if (opts.json) {
        io.out(`${JSON.stringify(found, null, 2)}\n`);
        return;
      }
      if (found.length === 0) {
        io.out(`No servers matching "${words.join(' ')}" in ${client.url}\n`);
        return;
      }
      const rows = [['NAME', 'VERSION', 'RUNS', 'STATUS', 'DESCRIPTION']];
      for (const item of found) {
        const s = item.server;
        rows.push([s.name, s.version, runsWith(s).join(',') || '-', statusOf(item), oneLine(s.description)]);
      }
      io.out(`${table(rows)}\n`);
    });

  program
    .command('show')
    .description('show a registry server whole: packages, remotes, their arguments, variables and headers')
    .argument('<name>', 'registry name, e.g. io.github.owner/server')
    .option(registryOption, registryHelp)
    .option('--at <version>', 'this version instead of the latest')
    .option('--json', 'print the registry entry as JSON')
    .action(async (name: string, opts: { registry?: string; at?: string; json?: boolean }) => {
      const client = createRegistryClient({ url: await registryUrl(io, opts.registry) });
      const item = await client.get(name, opts.at);
      io.out(opts.json ? `${JSON.stringify(item, null, 2)}\n` : describeServer(item));
    });

  program
    .command('outdated')
    .description('list servers added from a registry whose registry version moved')
    .option('--json', 'print JSON: name, scope, current, latest, registry name')
    .action(async (opts: { json?: boolean }) => {
      const config = await loadConfig({ cwd: io.cwd, env: io.env });
      const report: {
        name: string;
        scope: Scope;
        current: string;
        latest: string;
        registryName: string;
        status: string;
      }[] = [];
      let failed = 0;
      let checked = 0;
      for (const server of config.servers) {
        const source = registrySource(server.entry);
        if (!source) continue;
        checked++;
        try {
          const latest = await createRegistryClient({ url: source.registry }).get(source.name);
          if (latest.server.version === source.version) continue;
          report.push({
            name: server.name,
            scope: server.scope,
            current: source.version,
            latest: latest.server.version,
            registryName: source.name,
            status: statusOf(latest),
          });
        } catch (error) {
          if (!(error instanceof McpkitError)) throw error;
          failed++;
          io.err(`mcpkit: ${server.name}: ${error.message}\n`);
        }
      }
      if (opts.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
      else if (report.length === 0)
        io.out(
          checked === 0
            ? 'No servers were added from a registry.\n'
            : checked === 1
              ? 'The 1 server from a registry is up to date.\n'
              : `All ${checked} servers from a registry are up to date.\n`,
        );
      else {
        const rows = [['NAME', 'SCOPE', 'CURRENT', 'LATEST', 'REGISTRY NAME']];
        for (const r of report)
          rows.push([
            r.name,
            r.scope,
            r.current,
            `${r.latest}${r.status === 'active' ? '' : ` (${r.status})`}`,
            r.registryName,
          ]);
        io.out(`${table(rows)}\nMove a pin with: mcpkit update <name>\n`);
      }
      if (failed > 0)
        throw new McpkitError('REQUEST_FAILED', `${failed} of ${checked} registry lookups failed`);
    });

  program
    .command('update')
    .description('move a server added from a registry to the latest version, showing what changes')
    .argument('<name>', 'configured server name')
    .option('-s, --scope <scope>', 'project or user', parseScope)
    .option('--set <KEY=VALUE>', 'a value for an input the new version asks for (repeatable)', collect, [])
    .action(async (name: string, opts: { scope?: Scope; set: string[] }) => {
      const config = await loadConfig({ cwd: io.cwd, env: io.env });
      const server = findServer(config, name, opts.scope);
      const source = registrySource(server.entry);
      if (!source) {
        throw new McpkitError(
          'INVALID_ARGUMENT',
          `server "${name}" was not added from a registry (no "source" in ${server.file}); a bundle moves with mcpkit add <new .mcpb> --force`,
        );
      }
      const latest = await createRegistryClient({ url: source.registry }).get(source.name);
      if (latest.server.version === source.version) {
        io.out(`${name} is at ${source.version}, the latest version of ${source.name}\n`);
        return;
      }
      const previous = { ...previousValues(server.entry), ...(source.inputs ?? {}) };
      const installed = await entryFromServer(latest, source.registry, {
        ...installOptions(io, server.scope, opts.set),
        previous,
      });
      const diff = entryDiff(server.entry, installed.entry);
      await addServers([{ name, entry: installed.entry }], {
        cwd: io.cwd,
        env: io.env,
        scope: server.scope,
        force: true,
      });
      for (const note of installed.notes) io.err(`note: ${note}\n`);
      io.out(
        `Updated "${name}" ${source.version} → ${latest.server.version} in ${server.scope} scope (${server.file})\n${diff}`,
      );
    });
}

/** Flags `add` passes when its target is a registry name or a bundle. */
export interface CatalogAddFlags extends SandboxFlags {
  scope: Scope;
  force?: boolean;
  set: string[];
  registry?: string;
  as?: string;
  /** Flags of a command-line add: refused here (the entry's own inputs are given with --set). */
  env?: string[];
  header?: string[];
  transport?: string;
  cwd?: string;
}

/** `mcpkit add <registry name | ./x.mcpb | https://…/x.mcpb>`: the entry built, inputs decided, written. */
export async function addFromCatalog(io: CliIO, target: string, flags: CatalogAddFlags): Promise<void> {
  const foreign = [
    flags.env?.length ? '--env' : '',
    flags.header?.length ? '--header' : '',
    flags.transport ? '--transport' : '',
    flags.cwd ? '--cwd' : '',
  ].filter(Boolean);
  if (foreign.length > 0)
    usage(
      `add ${target}: ${foreign.join(', ')} ${foreign.length === 1 ? 'is' : 'are'} for a command or URL; give the entry's inputs with --set KEY=VALUE`,
    );
  const options = installOptions(io, flags.scope, flags.set);
  let installed: InstalledEntry;
  if (isBundleReference(target)) installed = await entryFromBundle(target, options);
  else if (/^[A-Za-z0-9.-]+\/[A-Za-z0-9._-]+$/.test(target)) {
    const client = createRegistryClient({ url: await registryUrl(io, flags.registry) });
    installed = await entryFromRegistry(client, target, options);
  } else
    return usage(
      `add: "${target}" is neither a registry name (io.github.owner/server) nor a .mcpb bundle; to add a command: mcpkit add <name> -- <command> [args…]`,
    );
  const name = flags.as ?? installed.name;
  const entry = withSandboxFlags(installed.entry, flags);
  const result = await addServers([{ name, entry }], {
    cwd: io.cwd,
    env: io.env,
    scope: flags.scope,
    force: flags.force ?? false,
  });
  for (const note of installed.notes) io.err(`note: ${note}\n`);
  const verb = result.replaced.length > 0 ? 'Replaced' : 'Added';
  io.out(`${verb} server "${name}" (${installed.how}) in ${flags.scope} scope (${result.file})\n`);
}

function installOptions(io: CliIO, scope: Scope, set: readonly string[]): InstallOptions {
  const given: Record<string, string> = {};
  for (const pair of set) {
    const eq = pair.indexOf('=');
    if (eq <= 0) usage(`--set "${pair}": expected KEY=VALUE`);
    given[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const terminal = io.stdin.isTTY === true && io.stderrIsTTY;
  return {
    given,
    secretsAsReferences: scope === 'project',
    dataDir: userDataDir(io.env),
    cwd: io.cwd,
    ...(terminal ? { ask: terminalAsk(io) } : {}),
  };
}

/** Asks one input on the terminal (on stderr: stdout stays clean); a secret is typed without echo. */
function terminalAsk(io: CliIO): AskInput {
  return async (input) => {
    let muted = false;
    const output = new Writable({
      write(chunk, _encoding, done) {
        if (!muted) process.stderr.write(chunk);
        done();
      },
    });
    const rl = createInterface({ input: io.stdin, output, terminal: true });
    try {
      const hints = [
        input.choices ? input.choices.join('/') : '',
        input.default !== undefined ? `default ${input.default}` : '',
        input.required ? 'required' : '',
      ].filter(Boolean);
      if (input.description) io.err(`${input.description}\n`);
      const question = rl.question(`${input.label}${hints.length > 0 ? ` (${hints.join(', ')})` : ''}: `);
      muted = input.secret;
      const answer = (await question).trim();
      if (input.secret) io.err('\n');
      return answer === '' ? undefined : answer;
    } finally {
      rl.close();
    }
  };
}

/**
 * The registry to ask: `--registry`, else `MCPKIT_REGISTRY_URL`, else the `registry` setting of the project's
 * `.mcp.json` or the user config, else the official registry.
 */
async function registryUrl(io: CliIO, flag: string | undefined): Promise<string> {
  const chosen = flag ?? io.env.MCPKIT_REGISTRY_URL ?? (await configuredRegistry(io)) ?? DEFAULT_REGISTRY_URL;
  if (!/^https?:\/\/[^\s/]+/i.test(chosen))
    usage(
      `the registry must be an http:// or https:// URL, got "${chosen}"${flag === undefined ? '' : ' (--registry)'}`,
    );
  return chosen;
}

async function configuredRegistry(io: CliIO): Promise<string | undefined> {
  for (const scope of ['project', 'user'] as const) {
    const doc = await readJsonDocument(configFile(scope, { cwd: io.cwd, env: io.env }));
    const value = doc.value.registry;
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** An entry's env and header values by name: what `update` keeps when the new version asks the same. */
function previousValues(entry: ServerEntry): Record<string, string> {
  const e = entry as { env?: Record<string, string>; headers?: Record<string, string> };
  return { ...(e.env ?? {}), ...(e.headers ?? {}) };
}

/** The lines of two entries that differ, `-` old and `+` new, secrets masked. */
function entryDiff(before: ServerEntry, after: ServerEntry): string {
  const lines = (entry: ServerEntry) => JSON.stringify(maskEntry(entry), null, 2).split('\n');
  const old = lines(before);
  const now = lines(after);
  const removed = old.filter((l) => !now.includes(l)).map((l) => `- ${l.trim()}`);
  const added = now.filter((l) => !old.includes(l)).map((l) => `+ ${l.trim()}`);
  return [...removed, ...added].map((l) => `  ${l}\n`).join('');
}

function describeServer(item: ServerResponse): string {
  const s = item.server;
  const meta = item._meta?.[OFFICIAL_META];
  const out: string[] = [
    `${s.name} ${s.version}${s.title ? `  ${s.title}` : ''}  (${statusOf(item)}${meta?.statusMessage ? `: ${meta.statusMessage}` : ''})`,
  ];
  if (s.description) out.push(`  ${oneLine(s.description)}`);
  if (s.websiteUrl) out.push(`  website: ${s.websiteUrl}`);
  if (s.repository?.url) out.push(`  repository: ${s.repository.url}`);
  for (const p of s.packages ?? []) {
    out.push(
      `  package ${p.registryType} ${p.identifier}${p.version ? ` ${p.version}` : ''} (${p.transport.type})`,
    );
    for (const a of [...(p.runtimeArguments ?? []), ...(p.packageArguments ?? [])])
      out.push(
        inputLine(`${a.type === 'named' ? 'flag' : 'arg'} ${a.name ?? a.valueHint ?? a.value ?? ''}`, a),
      );
    for (const v of p.environmentVariables ?? []) out.push(inputLine(`env ${v.name}`, v));
  }
  for (const r of s.remotes ?? []) {
    out.push(`  remote ${r.type} ${r.url}`);
    for (const [key, v] of Object.entries(r.variables ?? {})) out.push(inputLine(`variable ${key}`, v));
    for (const h of r.headers ?? []) out.push(inputLine(`header ${h.name}`, h));
  }
  out.push(`  add it: mcpkit add ${s.name}`);
  return `${out.join('\n')}\n`;
}

function inputLine(what: string, input: RegistryInput): string {
  const marks = [
    input.isRequired ? 'required' : 'optional',
    input.isSecret ? 'secret' : '',
    input.value !== undefined ? `= ${input.value}` : '',
    input.default !== undefined ? `default ${input.default}` : '',
    input.choices ? `one of ${input.choices.join(', ')}` : '',
  ].filter(Boolean);
  return `    ${what}  ${marks.join(', ')}${input.description ? `  ${oneLine(input.description)}` : ''}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
