import { resolve } from 'node:path';
import type { Command } from 'commander';
import { RedisTokenStore, Runtime, type RuntimeServerConfig } from '../client/index.js';
import {
  findProfile,
  findServer,
  homeDirectory,
  loadConfig,
  loadProfiles,
  userConfigDir,
} from '../config/index.js';
import {
  asReplica,
  Gateway,
  LogBuffer,
  PINS_CHANNEL,
  type PinMode,
  PinStore,
  type PrefixMode,
  RedisPins,
  revealedOverRedis,
  selectedServers,
  watchFiles,
} from '../gateway/index.js';
import { reapGroupsOnAbruptExit } from '../internal/process-group.js';
import { parseDbTarget } from '../search/db-schemas/db-target.js';
import { parseStoreUrl } from '../search/stores/pg/store-url.js';
import type { HttpMount } from '../serve/http.js';
import { count } from './format.js';
import { checkTokens, checkWritable } from './gateway-flags.js';
import { type ObserverFlags, startObservers } from './gateway-observers.js';
import { bindFirst } from './http-port.js';
import type { CliIO } from './io.js';
import { collect, positiveInteger, usage } from './options.js';
import { logSandboxDenials } from './sandbox-denials.js';
import { replicaState, stateUrl } from './scale-out.js';
import { addServeOptions, checkServeFlags } from './serve-options.js';
import { type ServeFlags, serveUntilDone, watchClientStdin } from './serve-until-done.js';

interface GatewayFlags extends ServeFlags, ObserverFlags {
  only?: string[];
  except?: string[];
  prefix: PrefixMode;
  deferThreshold?: number;
  toolIndex?: string;
  pin: PinMode;
  watch: boolean;
  readyWait: number;
  search?: boolean;
  db: string[];
  dbRefresh?: number;
  store?: string;
  maxResultTokens: number;
  profile?: string;
}

/** This CLI's own entry file, to start `mcpkit search-server` as an upstream. */
const cliEntry = () => process.argv[1] as string;

const names = (value: string) =>
  value
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);

function oneOf<T extends string>(flag: string, allowed: readonly T[]): (value: string) => T {
  return (value) => {
    if ((allowed as readonly string[]).includes(value)) return value as T;
    return usage(`${flag} must be ${allowed.map((a) => `"${a}"`).join(' or ')}, got "${value}"`);
  };
}

/** `mcpkit gateway` serves every configured server behind one; `mcpkit trust <server>` re-pins its tools. */
export function registerGatewayCommands(program: Command, io: CliIO): void {
  addServeOptions(program.command('gateway'))
    .description('serve every configured MCP server behind one, with tool_search when tools are many')
    .option('--only <names>', 'serve only these servers (comma-separated)', names)
    .option('--except <names>', 'serve all but these servers (comma-separated)', names)
    .option(
      '--prefix <mode>',
      'tool and prompt names: "server" (<server>__<tool>) or "none"',
      oneOf('--prefix', ['server', 'none'] as const),
      'server',
    )
    .option(
      '--defer-threshold <n>',
      'with more tools than this, list only tool_search and call_tool (default: never; clients that check calls against the listing refuse deferred tools)',
      nonNegative('--defer-threshold'),
    )
    .option('--tool-index <file>', 'keep a Markdown index of every tool in this file')
    .option(
      '--pin <mode>',
      'changed tool definitions: "warn" (log), "strict" (hide until `mcpkit trust`) or "off"',
      oneOf('--pin', ['warn', 'strict', 'off'] as const),
      'warn',
    )
    .option('--no-watch', 'do not follow changes to the config files')
    .option(
      '--search',
      'always serve the built-in code search over the working directory (as server "search")',
    )
    .option('--no-search', 'never serve it (default: only when no server is configured)')
    .option(
      '--db <url>',
      'a database whose schema the built-in code search serves too: [NAME=]postgres://…, mysql://… or a SQLite file; ${VAR} expanded (repeatable; implies --search)',
      collect,
      [],
    )
    .option(
      '--db-refresh <seconds>',
      'the built-in search re-reads the database schemas this often',
      positiveInteger('--db-refresh'),
    )
    .option(
      '--store <url>',
      'the built-in code search answers from this shared index in PostgreSQL (written by `mcpkit index --store`; gateway replicas share it; implies --search)',
    )
    .option(
      '--profile <name>',
      'serve only the tools of this profile of the config (over HTTP every profile is also at /mcp/<name>)',
    )
    .option(
      '--max-result-tokens <n>',
      'cut a tool result over this many tokens (estimated: characters / 4) at a line boundary; the whole stays readable as a resource (0: never)',
      nonNegative('--max-result-tokens'),
      25_000,
    )
    .option(
      '--ready-wait <ms>',
      'wait this long for servers before serving; slower ones join later',
      nonNegative('--ready-wait'),
      10_000,
    )
    .option(
      '--audit <file>',
      'append a JSON line per tool call to this file (rotated at 10 MiB; no arguments, only a digest)',
    )
    .option('--no-dashboard', 'HTTP: do not serve the web dashboard at /')
    .option(
      '--dashboard-payloads',
      "HTTP: show calls' arguments and results on the dashboard (secrets masked)",
    )
    .action(async (flags: GatewayFlags) => {
      checkServeFlags('gateway', flags);
      // Every flag's value is checked before anything binds or starts: a bad token file is one line, not a
      // failure found after every upstream came up.
      await checkTokens(flags);
      if (flags.audit !== undefined) await checkWritable('--audit', resolve(io.cwd, flags.audit));
      if (flags.toolIndex !== undefined)
        await checkWritable('--tool-index', resolve(io.cwd, flags.toolIndex));
      if (flags.transport !== 'http' && (flags.dashboardPayloads || !flags.dashboard))
        usage('--dashboard-payloads, --no-dashboard: only with -t http (the dashboard is served over HTTP)');
      // A stdio client that leaves while the upstreams start stops the gateway then, not after --ready-wait.
      const client = flags.transport === 'http' ? undefined : watchClientStdin();
      // Bound before any upstream starts: a busy port fails at once, not after the servers are up.
      const port = await bindFirst(flags);
      // Upstreams start inside Gateway.create, before serving: a SIGKILL while they start must not orphan them.
      reapGroupsOnAbruptExit();
      let replica: Awaited<ReturnType<typeof replicaState>> = {};
      try {
        // Replicas share pins through the same Redis as their sessions: connected before the gateway starts.
        if (flags.transport === 'http') replica = await replicaState(flags, io, 'mcpkit gateway');
        const location = { cwd: io.cwd, env: io.env };
        let profiles = await loadProfiles(location);
        for (const warning of profiles.warnings) io.err(`mcpkit gateway: ${warning}\n`);
        const profile = flags.profile === undefined ? undefined : findProfile(profiles, flags.profile);
        // A profile of whole servers needs only those started.
        const only =
          profile?.servers && !profile.tools
            ? (flags.only ?? profile.servers).filter((n) => profile.servers?.includes(n))
            : flags.only;
        const selection = {
          ...(only ? { only } : {}),
          ...(flags.except ? { except: flags.except } : {}),
          ...(only && !flags.only && !flags.except ? { namedIn: `profile "${flags.profile}"` } : {}),
        };
        const first = await selectedServers(location, selection);
        for (const warning of first.warnings) io.err(`mcpkit gateway: ${warning}\n`);
        // The built-in code search over the working directory: there by default when nothing is configured
        // (the gateway is useful with no set-up), and it stays when servers are added later.
        // Never over / or the home directory (Claude Desktop starts servers in /): that is not a project.
        const broad = io.cwd === '/' || io.cwd === homeDirectory(io.env);
        // "Nothing configured", not "nothing selected": a profile or --only that matches no server gets no
        // search it did not ask for.
        if (broad && flags.search !== false && first.configured === 0)
          io.err(
            `mcpkit gateway: not serving code search over ${io.cwd}; start the gateway in a project directory\n`,
          );
        // A malformed store URL is the user's to fix before anything starts (one line, the password masked).
        if (flags.store !== undefined) parseStoreUrl(flags.store);
        const databases = searchDatabases(flags, io);
        const builtIn =
          !broad &&
          (flags.search ?? (first.configured === 0 || flags.db.length > 0 || flags.store !== undefined))
            ? [
                {
                  name: 'search',
                  entry: {
                    command: process.execPath,
                    args: [cliEntry(), 'search-server', io.cwd, ...databases.args],
                    ...(databases.specs.length > 0 || flags.store !== undefined
                      ? {
                          env: {
                            ...(databases.specs.length > 0
                              ? { MCPKIT_SEARCH_DB: databases.specs.join('\n') }
                              : {}),
                            // Like the databases: in the environment, so the store's password is on no command line.
                            ...(flags.store !== undefined ? { MCPKIT_SEARCH_STORE: flags.store } : {}),
                          },
                        }
                      : {}),
                  },
                },
              ]
            : [];
        if (builtIn.length > 0 && first.configured === 0)
          io.err(
            `mcpkit gateway: no servers configured; serving code search over ${io.cwd} (add servers with \`mcpkit add\`)\n`,
          );
        // A replica reaches a server marked `single` at its URL instead of starting its own.
        const withBuiltIn = (servers: RuntimeServerConfig[]) => [
          ...builtIn.filter((b) => !servers.some((s) => s.name === b.name)),
          ...(replica.shared ? asReplica(servers) : servers),
        ];
        const logs = new LogBuffer();
        const stopDenials = logSandboxDenials(io, logs);
        const revealed = replica.state ? revealedOverRedis(replica.state) : undefined;
        const gateway = await Gateway.create({
          servers: withBuiltIn(first.servers),
          prefix: flags.prefix,
          ...(flags.deferThreshold === undefined ? {} : { deferThreshold: flags.deferThreshold }),
          pin: flags.pin,
          // mcpkit's own search changes with mcpkit: pinning it would only ever warn about an upgrade.
          unpinned: builtIn.map((b) => b.name).filter((n) => !first.servers.some((s) => s.name === n)),
          readyWaitMs: flags.readyWait,
          maxResultTokens: flags.maxResultTokens,
          profiles: profiles.profiles,
          ...(flags.profile === undefined ? {} : { profile: flags.profile }),
          ...(replica.state ? { pinStore: new RedisPins(replica.state.redis) } : {}),
          ...(revealed ? { shareRevealed: revealed.publish } : {}),
          ...(replica.state ? { tokenStore: RedisTokenStore.over(replica.state, replica.secret ?? '') } : {}),
          env: io.env,
          log: (message) => {
            io.err(`mcpkit gateway: ${message}\n`);
            logs.add(message);
          },
          ...(flags.toolIndex ? { toolIndexFile: resolve(io.cwd, flags.toolIndex) } : {}),
        });
        const observers = await startObservers(gateway, flags, io, logs).catch(async (error: unknown) => {
          await gateway.close();
          throw error;
        });
        const pinFile = `${userConfigDir(io.env)}/pins.json`;
        const watches = flags.watch
          ? [
              watchFiles(first.files, () => {
                loadProfiles(location)
                  .then((changed) => {
                    if (JSON.stringify(changed.profiles) === JSON.stringify(profiles.profiles)) return;
                    for (const warning of changed.warnings) io.err(`mcpkit gateway: ${warning}\n`);
                    profiles = changed;
                    gateway.updateProfiles(changed.profiles);
                  })
                  .catch((error: Error) =>
                    io.err(`mcpkit gateway: profiles not applied: ${error.message}\n`),
                  );
                selectedServers(location, selection)
                  .then(({ servers, warnings }) => {
                    for (const warning of warnings) io.err(`mcpkit gateway: ${warning}\n`);
                    return gateway.reconcile(withBuiltIn(servers));
                  })
                  .catch((error: Error) => io.err(`mcpkit gateway: config not applied: ${error.message}\n`));
              }),
              watchFiles([pinFile], () => {
                gateway.reloadPins().catch((error: Error) => io.err(`mcpkit gateway: ${error.message}\n`));
              }),
            ]
          : [];
        // Serving starts once the config is watched: an edit right after the start (chokidar sets its watches up
        // asynchronously) would otherwise be missed for good.
        await Promise.all(watches.map((w) => w.ready));
        await revealed?.attach(gateway);
        await replica.state?.subscribe(PINS_CHANNEL, () => {
          gateway.reloadPins().catch((error: Error) => io.err(`mcpkit gateway: ${error.message}\n`));
        });
        const served = flags.profile === undefined ? gateway : gateway.profile(flags.profile);
        const tools = (await served.catalog()).tools.length;
        const ready = gateway.status().filter((s) => s.state === 'ready').length;
        const starting = gateway.status().filter((s) => s.state === 'starting').length;
        const later = starting > 0 ? ` (${starting} still starting; they join when ready)` : '';
        const total = gateway.status().length;
        io.err(
          `mcpkit gateway: ${ready}/${total} server${total === 1 ? '' : 's'} ready, ${count(tools, 'tool')}${flags.profile === undefined ? '' : ` in profile ${flags.profile}`}${later}\n`,
        );
        await serveUntilDone(
          io,
          gateway.factory,
          port ? { ...flags, port: port.port } : flags,
          'mcpkit gateway: serving',
          async () => {
            await Promise.all(watches.map((w) => w.close()));
            await gateway.close();
            await observers.close();
            stopDenials();
          },
          gateway.intercept(),
          {
            bus: gateway.events,
            toolSchema: (name) => gateway.toolSchema(name),
            // Beside /mcp (every tool), each profile on its own path; with --profile, that one only.
            mounts: flags.profile === undefined ? profileMounts(gateway, Object.keys(profiles.profiles)) : [],
            ...(observers.pages ? { pages: observers.pages } : {}),
            ...(observers.onListening ? { onListening: observers.onListening } : {}),
            ...(replica.shared ? { shared: replica.shared } : {}),
            ...(client ? { client } : {}),
            // Ready once an upstream is (a replica with none would only answer errors).
            ready: () => gateway.status().some((s) => s.state === 'ready') || gateway.status().length === 0,
          },
        );
      } finally {
        // A start that failed lets go of stdin, or the open pipe would keep the process alive after its error.
        client?.release();
        await replica.state?.close();
        await port?.release();
      }
    });

  program
    .command('trust')
    .description("accept a server's current tool definitions (after `mcpkit gateway` reported a change)")
    .argument('<server>', 'a configured server name')
    .option('--state <url>', 'the redis://host:port gateway replicas share pins in (or MCPKIT_STATE)')
    .action(async (name: string, flags: { state?: string }) => {
      const config = await loadConfig({ cwd: io.cwd, env: io.env });
      const server = findServer(config, name);
      const url = stateUrl(flags, io);
      const { RedisState } = await import('../serve/index.js');
      const state = url === undefined ? undefined : await RedisState.connect(url);
      let runtime: Runtime | undefined;
      try {
        const pins = await new PinStore(
          state ? new RedisPins(state.redis) : `${userConfigDir(io.env)}/pins.json`,
        ).load();
        pins.identify([server]);
        runtime = await Runtime.create({
          servers: [{ name: server.name, entry: server.entry }],
          env: io.env,
        });
        const tools = await runtime.server(server.name).listTools();
        const { pinned, changed } = pins.trust(server.name, tools);
        await pins.save();
        io.out(
          `trusted ${pinned} tool${pinned === 1 ? '' : 's'} of ${server.name} (${changed} changed since pinned)\n`,
        );
      } finally {
        await runtime?.close();
        await state?.close();
      }
    });
}

/** Each profile at `/mcp/<name>`, beside `/mcp` (every tool). */
function profileMounts(gateway: Gateway, names: readonly string[]): HttpMount[] {
  return names.map((name) => {
    const profile = gateway.profile(name);
    return { path: `/mcp/${name}`, factory: profile.factory, intercept: profile.intercept() };
  });
}

function nonNegative(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) usage(`${flag} must be a whole number, got "${value}"`);
    return n;
  };
}

/**
 * `--db` for the built-in search: each database checked here (a bad one is one line and left out), then handed to
 * the search server in its environment (MCPKIT_SEARCH_DB, one `NAME=location` per line), so no password is on a
 * command line `ps` shows.
 */
function searchDatabases(flags: GatewayFlags, io: CliIO): { specs: string[]; args: string[] } {
  const specs: string[] = [];
  for (const spec of flags.db) {
    try {
      const target = parseDbTarget(spec, io.env, io.cwd);
      specs.push(`${target.name}=${target.location}`);
    } catch (error) {
      io.err(`mcpkit gateway: ${(error as Error).message}; searching code without it\n`);
    }
  }
  const args =
    flags.dbRefresh !== undefined && specs.length > 0 ? ['--db-refresh', String(flags.dbRefresh)] : [];
  return { specs, args };
}
