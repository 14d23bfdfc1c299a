import type { Command } from 'commander';
import {
  addServers,
  type ConfiguredServer,
  checkServerName,
  expandServerEntry,
  findServer,
  formatKeyHints,
  GATEWAY_LOOP,
  isStdioServer,
  keyHints,
  loadConfig,
  maskEntry,
  parseServerEntry,
  removeServerFrom,
  runsMcpkitGateway,
  type Scope,
  type ServerEntry,
  scopesDefining,
  transportOf,
} from '../config/index.js';
import { formatIssues } from '../config/schema.js';
import { McpkitError } from '../errors/index.js';
import { parseJsonText } from '../internal/json-document.js';
import { displayWords, pairs, serverJson, table, targetOf } from './format.js';
import type { CliIO } from './io.js';
import { collect, parseScope, parseTransport, positiveInteger, usage } from './options.js';
import {
  type SandboxFlags,
  sandboxMark,
  sandboxOptions,
  sandboxUnavailable,
  withSandboxFlags,
} from './sandbox-flags.js';

/** `add`, `add-json`, `list`, `get`, `remove`: the config commands, modelled on `claude mcp`. */
export function registerConfigCommands(program: Command, io: CliIO, _adhoc?: readonly string[]): void {
  const where = { cwd: io.cwd, env: io.env };

  sandboxOptions(program.command('add'))
    .description('add a server: `add <name> -- <command> [args…]` or `add <name> --transport http <url>`')
    .argument('<name>', 'server name: A-Z a-z 0-9 _ -, at most 64, no "__"')
    .argument('[command-or-url]', 'the command to run (stdio) or the server URL (http, sse)')
    .argument('[args...]', 'arguments for the command (put them after --)')
    .option('-s, --scope <scope>', 'project (.mcp.json here) or user', parseScope, 'project' as Scope)
    .option(
      '-t, --transport <transport>',
      'stdio, http or sse (default: http for a URL, else stdio)',
      parseTransport,
    )
    .option('-e, --env <KEY=VALUE>', 'environment variable for a stdio server (repeatable)', collect, [])
    .option('-H, --header <"Key: Value">', 'HTTP header for a remote server (repeatable)', collect, [])
    .option('--cwd <dir>', 'working directory of a stdio server')
    .option('--timeout <ms>', 'per-request timeout in milliseconds', positiveInteger('--timeout'))
    .option('-f, --force', 'replace a server of the same name')
    .option(
      '--set <KEY=VALUE>',
      'registry/bundle add: a value for one of its inputs (repeatable)',
      collect,
      [],
    )
    .option('--registry <url>', 'registry add: the MCP Registry to ask')
    .option('--as <name>', 'registry/bundle add: the server name to write (default: from the entry)')
    .addHelpText(
      'after',
      '\nBy registry name or bundle: mcpkit add io.github.owner/server | ./x.mcpb | https://…/x.mcpb\n',
    )
    .action(async (name: string, target: string | undefined, args: string[], opts: AddFlags) => {
      if (target === undefined && /^[\w.-]+\/[\w.-]+$|\.(mcpb|dxt)$/i.test(name))
        return (await import('./registry-commands.js')).addFromCatalog(io, name, opts);
      checkNameArgument(name);
      if (opts.set.length > 0 || opts.registry || opts.as)
        usage('--set, --registry and --as are for adding by registry name or .mcpb bundle');
      const entry = withSandboxFlags(entryFromFlags(target, args, opts), opts);
      refuseGateway(name, entry);
      const result = await addServers([{ name, entry }], {
        ...where,
        scope: opts.scope,
        force: opts.force ?? false,
      });
      const verb = result.replaced.length > 0 ? 'Replaced' : 'Added';
      io.out(`${verb} ${transportOf(entry)} server "${name}" in ${opts.scope} scope (${result.file})\n`);
    });

  program
    .command('add-json')
    .description('add a server from a JSON entry, validated like the config files')
    .argument('<name>', 'server name')
    .argument('<json>', `the entry, e.g. '{"command":"npx","args":["-y","pkg"]}'`)
    .option('-s, --scope <scope>', 'project or user', parseScope, 'project' as Scope)
    .option('-f, --force', 'replace a server of the same name')
    .action(async (name: string, json: string, opts: { scope: Scope; force?: boolean }) => {
      checkNameArgument(name);
      const value = parseJsonText('argument <json>', json, false, '');
      const hints = keyHints(value);
      if (hints.length > 0) {
        throw new McpkitError('CONFIG_INVALID', `argument <json>: ${formatKeyHints(hints)}; nothing written`);
      }
      const parsed = parseServerEntry(value);
      if (!parsed.ok) {
        throw new McpkitError(
          'CONFIG_INVALID',
          `argument <json>: ${formatIssues(parsed.issues)}; nothing written`,
        );
      }
      refuseGateway(name, parsed.entry);
      const result = await addServers([{ name, entry: value }], {
        ...where,
        scope: opts.scope,
        force: opts.force ?? false,
      });
      const verb = result.replaced.length > 0 ? 'Replaced' : 'Added';
      io.out(
        `${verb} ${transportOf(parsed.entry)} server "${name}" in ${opts.scope} scope (${result.file})\n`,
      );
    });

  program
    .command('list')
    .description('list configured servers from both scopes (project wins on a shared name)')
    .option('--json', 'print JSON')
    .option('--show-secrets', 'print env and header values instead of ***')
    .action(async (opts: { json?: boolean; showSecrets?: boolean }) => {
      const config = await loadConfig(where);
      for (const warning of config.warnings) io.err(`warning: ${warning}\n`);
      const show = opts.showSecrets ?? false;
      if (opts.json) {
        io.out(
          `${JSON.stringify(
            config.servers.map((s) => serverJson(s, show)),
            null,
            2,
          )}\n`,
        );
        return;
      }
      if (config.servers.length === 0) {
        io.out('No MCP servers configured. Add one with: mcpkit add <name> -- <command> [args…]\n');
        return;
      }
      const rows = [['NAME', 'SCOPE', 'TRANSPORT', 'TARGET']];
      const unsandboxable = await sandboxUnavailable(config.servers.map((s) => s.entry));
      for (const server of config.servers) rows.push(listRow(server, show, unsandboxable));
      io.out(`${table(rows)}\n`);
    });

  program
    .command('get')
    .description('show one server (the one in effect, or --scope)')
    .argument('<name>', 'server name')
    .option('-s, --scope <scope>', 'project or user', parseScope)
    .option('--json', 'print JSON')
    .option('--show-secrets', 'print env and header values instead of ***')
    .option('--expand', 'show ${VAR} references expanded as they will be used')
    .action(async (name: string, opts: GetFlags) => {
      const config = await loadConfig(where);
      for (const warning of config.warnings) io.err(`warning: ${warning}\n`);
      const server = findServer(config, name, opts.scope);
      const entry = opts.expand ? expandServerEntry(name, server.entry, io.env) : server.entry;
      const shown = { ...server, entry };
      const show = opts.showSecrets ?? false;
      if (opts.json) {
        io.out(`${JSON.stringify(serverJson(shown, show), null, 2)}\n`);
        return;
      }
      const others = config.servers.filter((s) => s.name === name && s !== server);
      io.out(describe(shown, show, others));
    });

  program
    .command('remove')
    .description('remove a server (a name in both scopes needs --scope)')
    .argument('<name>', 'server name')
    .option('-s, --scope <scope>', 'project or user', parseScope)
    .action(async (name: string, opts: { scope?: Scope }) => {
      let scope = opts.scope;
      if (!scope) {
        const scopes = await scopesDefining(name, where);
        if (scopes.length > 1) {
          usage(
            `"${name}" is defined in both project and user scope; say which with --scope project or --scope user`,
          );
        }
        if (scopes[0] === undefined) {
          throw new McpkitError(
            'SERVER_NOT_FOUND',
            `no server named "${name}" in project or user scope; see "mcpkit list"`,
          );
        }
        scope = scopes[0];
      }
      const { file } = await removeServerFrom(name, { ...where, scope });
      io.out(`Removed server "${name}" from ${scope} scope (${file})\n`);
    });
}

interface AddFlags extends SandboxFlags {
  scope: Scope;
  transport?: 'stdio' | 'http' | 'sse';
  env: string[];
  header: string[];
  cwd?: string;
  timeout?: number;
  force?: boolean;
  set: string[];
  registry?: string;
  as?: string;
}

interface GetFlags {
  scope?: Scope;
  json?: boolean;
  showSecrets?: boolean;
  expand?: boolean;
}

/** The gateway serves this config: an entry that runs it would make it start itself without end. */
function refuseGateway(name: string, entry: ServerEntry): void {
  if (runsMcpkitGateway(entry)) throw new McpkitError('CONFIG_INVALID', `server "${name}" ${GATEWAY_LOOP}`);
}

function checkNameArgument(name: string): void {
  const problem = checkServerName(name);
  if (problem) usage(`invalid server name "${name}": ${problem}`);
}

/** The entry `add`'s flags describe; every misuse is a usage error naming the flag. */
function entryFromFlags(target: string | undefined, args: string[], opts: AddFlags): ServerEntry {
  const looksLikeUrl = target !== undefined && /^https?:\/\//i.test(target);
  const transport = opts.transport ?? (looksLikeUrl && args.length === 0 ? 'http' : 'stdio');
  if (target === undefined) {
    usage(
      transport === 'stdio'
        ? 'missing command: mcpkit add <name> -- <command> [args…]'
        : `missing URL: mcpkit add <name> --transport ${transport} <url>`,
    );
  }
  const env = Object.fromEntries(opts.env.map((pair) => splitEnv(pair)));
  const headers = Object.fromEntries(opts.header.map((pair) => splitHeader(pair)));
  const common = opts.timeout === undefined ? {} : { timeout: opts.timeout };
  if (transport === 'stdio') {
    if (opts.header.length > 0) usage('--header is for http and sse servers; a stdio server takes --env');
    return {
      command: target,
      ...(args.length > 0 ? { args } : {}),
      ...(opts.env.length > 0 ? { env } : {}),
      ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
      ...common,
    };
  }
  if (!looksLikeUrl) usage(`--transport ${transport} needs an http:// or https:// URL, got "${target}"`);
  if (args.length > 0) usage(`unexpected arguments after the URL: ${args.join(' ')}`);
  if (opts.env.length > 0) usage('--env is for stdio servers; a remote server takes --header');
  if (opts.cwd !== undefined) usage('--cwd is for stdio servers');
  return { type: transport, url: target, ...(opts.header.length > 0 ? { headers } : {}), ...common };
}

function splitEnv(pair: string): [string, string] {
  const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(pair);
  if (!match) usage(`--env "${pair}": expected KEY=VALUE with KEY made of letters, digits and _`);
  return [match[1] as string, match[2] as string];
}

function splitHeader(pair: string): [string, string] {
  const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*:\s*(.*)$/s.exec(pair);
  if (!match) usage(`--header "${pair}": expected "Name: value"`);
  return [match[1] as string, match[2] as string];
}

function listRow(server: ConfiguredServer, showSecrets: boolean, unsandboxable?: string): string[] {
  const entry = showSecrets ? server.entry : maskEntry(server.entry);
  let target = targetOf(entry);
  if (isStdioServer(entry) && entry.env) target += `  [env: ${pairs(entry.env)}]`;
  if (!isStdioServer(entry) && entry.headers) target += `  [headers: ${pairs(entry.headers, ': ')}]`;
  const marks = [
    entry.disabled ? '(disabled)' : '',
    server.shadowed ? '(shadowed by project)' : '',
    sandboxMark(entry, unsandboxable),
  ];
  return [server.name, server.scope, transportOf(entry), [target, ...marks.filter(Boolean)].join('  ')];
}

function describe(server: ConfiguredServer, showSecrets: boolean, others: ConfiguredServer[]): string {
  const entry = showSecrets ? server.entry : maskEntry(server.entry);
  const rows: string[][] = [
    ['scope:', `${server.scope} (${server.file})`],
    ['transport:', transportOf(entry)],
  ];
  if (isStdioServer(entry)) {
    rows.push(['command:', entry.command]);
    if (entry.args?.length) rows.push(['args:', displayWords(entry.args)]);
    if (entry.env) rows.push(['env:', pairs(entry.env)]);
    if (entry.cwd) rows.push(['cwd:', entry.cwd]);
    if (entry.sandbox !== undefined) rows.push(['sandbox:', JSON.stringify(entry.sandbox)]);
  } else {
    rows.push(['url:', entry.url]);
    if (entry.headers) rows.push(['headers:', pairs(entry.headers, ': ')]);
  }
  if (entry.timeout !== undefined) rows.push(['timeout:', `${entry.timeout} ms`]);
  if (entry.startupTimeout !== undefined) rows.push(['startup:', `${entry.startupTimeout} ms`]);
  if (entry.includeTools) rows.push(['include:', entry.includeTools.join(', ')]);
  if (entry.excludeTools) rows.push(['exclude:', entry.excludeTools.join(', ')]);
  if (entry.disabled) rows.push(['disabled:', 'yes']);
  for (const other of others) {
    const relation = other.shadowed ? 'shadows' : 'shadowed by';
    rows.push([`${relation}:`, `${other.scope} scope entry (${other.file})`]);
  }
  return `${server.name}\n${table(rows.map((r) => ['', ...r]))}\n`;
}
