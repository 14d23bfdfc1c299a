import { Command, CommanderError } from 'commander';
import { isMcpkitError } from '../errors/index.js';
import { errorMessage } from '../internal/error-message.js';
import { exitCodeOf, ownSignals, stopCause } from '../internal/signals.js';
import { type CliIO, processIO } from './io.js';
import { CLI_VERSION } from './version.js';

/** Exit statuses: 0 ok, 1 the operation failed, 2 the command line was wrong; 128 + n stopped by signal n. */
export const EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 130, terminated: 143 } as const;

/** Commands that talk to a server; after `--` comes an ad-hoc stdio server for them. */
const SERVER_COMMANDS = ['tools', 'call', 'resources', 'read', 'prompts', 'prompt', 'ping', 'check', 'tasks'];
SERVER_COMMANDS.push('skills', 'skill'); // skills-commands.ts

/** The flags that print the version (commander answers them before any command runs). */
const VERSION_FLAGS = ['-V', '--version'];

type Register = (program: Command, io: CliIO, adhoc: readonly string[] | undefined) => void;

/**
 * The command groups, each loaded only when one of its commands runs: `mcpkit bridge` must start as fast
 * as a bare server, so it must not load the client runtime, the config formats or the checks.
 */
const GROUPS: { commands: string[]; load: () => Promise<Register> }[] = [
  {
    commands: ['add', 'add-json', 'list', 'get', 'remove'],
    load: async () => (await import('./config-commands.js')).registerConfigCommands,
  },
  {
    commands: ['import', 'export'],
    load: async () => (await import('./transfer-commands.js')).registerTransferCommands,
  },
  {
    commands: ['tools', 'call', 'resources', 'read', 'prompts', 'prompt', 'ping'],
    load: async () => (await import('./server-commands.js')).registerServerCommands,
  },
  { commands: ['tasks'], load: async () => (await import('./tasks-command.js')).registerTasksCommand },
  {
    commands: ['skills', 'skill'],
    load: async () => (await import('./skills-commands.js')).registerSkillsCommands,
  },
  { commands: ['check'], load: async () => (await import('./check-command.js')).registerCheckCommand },
  { commands: ['doctor'], load: async () => (await import('./doctor-command.js')).registerDoctorCommand },
  { commands: ['bridge'], load: async () => (await import('./bridge-command.js')).registerBridgeCommand },
  {
    commands: ['search-server', 'query', 'index'],
    load: async () => (await import('./search-commands.js')).registerSearchCommands,
  },
  { commands: ['auth'], load: async () => (await import('./auth-command.js')).registerAuthCommands },
  {
    commands: ['find', 'show', 'outdated', 'update'],
    load: async () => (await import('./registry-commands.js')).registerRegistryCommands,
  },
  {
    commands: ['sandbox'],
    load: async () => (await import('./sandbox-commands.js')).registerSandboxCommands,
  },
  {
    commands: ['dashboard'],
    load: async () => (await import('./dashboard-command.js')).registerDashboardCommand,
  },
  {
    commands: ['gateway', 'trust'],
    load: async () => (await import('./gateway-command.js')).registerGatewayCommands,
  },
];

/**
 * Builds the `mcpkit` program: the group of `command` only, none for `--version`, or every group (for help
 * or an unknown command). `adhoc` is what followed `--` for a command that talks to a server.
 */
export async function createProgram(
  io: CliIO,
  adhoc?: readonly string[],
  command?: string,
): Promise<Command> {
  const program = new Command('mcpkit')
    .description('Connect AI agents and command-line programs through the Model Context Protocol.')
    .version(CLI_VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showSuggestionAfterError();
  for (const group of groupsFor(command)) (await group.load())(program, io, adhoc);
  for (const command of program.commands) command.exitOverride();
  return program;
}

/**
 * The groups a run needs: none for `--version` (commander answers it before any command), the command's own,
 * or every group when the first word is no command (help lists them all, a typo gets a suggestion).
 */
function groupsFor(command: string | undefined): typeof GROUPS {
  if (command !== undefined && VERSION_FLAGS.includes(command)) return [];
  const mine = GROUPS.filter((g) => command !== undefined && g.commands.includes(command));
  return mine.length > 0 ? mine : GROUPS;
}

/**
 * Runs the CLI on `argv` (without node and script) and returns the exit status. The one place errors
 * become exit codes: nothing below calls process.exit.
 */
export async function run(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  // SIGINT/SIGTERM/SIGHUP have one owner from the first moment (src/internal/signals.ts).
  ownSignals();
  try {
    // For server commands, `-- <command…>` is an ad-hoc server, cut off before commander sees it.
    const dash = argv.indexOf('--');
    const serverCommand = argv[0] !== undefined && SERVER_COMMANDS.includes(argv[0]);
    const adhoc = serverCommand && dash !== -1 ? argv.slice(dash + 1) : undefined;
    const words = adhoc ? argv.slice(0, dash) : [...argv];
    await (await createProgram(io, adhoc, argv[0])).parseAsync(words, { from: 'user' });
    return stoppedCode() ?? EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed the message or the help already.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const debug = io.env.MCPKIT_DEBUG === '1';
    if (isMcpkitError(error)) {
      io.err(`mcpkit: ${error.message}\n`);
      if (debug) io.err(`${stackOf(error)}\n`);
      // 128 + signal number, as shells report a process ended by that signal.
      if (error.code === 'CANCELLED')
        return stoppedCode() ?? (error.cause === 'SIGTERM' ? EXIT.terminated : EXIT.cancelled);
      return error.code === 'USAGE' || error.code === 'INVALID_ARGUMENT' ? EXIT.usage : EXIT.failed;
    }
    // One line: where it happened is for MCPKIT_DEBUG=1, which prints the stack.
    io.err(
      `mcpkit: unexpected error: ${errorMessage(error)}${debug ? '' : ' (MCPKIT_DEBUG=1 shows the stack)'}\n`,
    );
    if (debug) io.err(`${stackOf(error)}\n`);
    return EXIT.failed;
  }
}

/** 128 + n when signal n stopped the command (a server that shut down well too), else nothing. */
function stoppedCode(): number | undefined {
  const cause = stopCause();
  return cause === undefined || cause === 'eof' ? undefined : exitCodeOf(cause);
}

/** The stack of an error and of its causes, for MCPKIT_DEBUG=1. */
function stackOf(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 5; depth++) {
    parts.push(e instanceof Error ? (e.stack ?? e.message) : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join('\ncaused by: ');
}
