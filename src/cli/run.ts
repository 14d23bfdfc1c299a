import { Command, CommanderError } from 'commander';
import { errorMessage, isMcpkitError } from '../internal/errors.js';
import { registerBridgeCommand } from './bridge-command.js';
import { registerCheckCommand } from './check-command.js';
import { registerConfigCommands } from './config-commands.js';
import { type CliIO, processIO } from './io.js';
import { registerServerCommands, SERVER_COMMANDS } from './server-commands.js';
import { registerTransferCommands } from './transfer-commands.js';
import { CLI_VERSION } from './version.js';

/** Exit statuses: 0 ok, 1 the operation failed, 2 the command line was wrong. */
export const EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 130, terminated: 143 } as const;

/**
 * Builds the `mcpkit` program with every command group registered. `adhoc` is what followed `--` for a
 * command that talks to a server: the ad-hoc stdio server to start.
 */
export function createProgram(io: CliIO, adhoc?: readonly string[]): Command {
  const program = new Command('mcpkit')
    .description('Connect AI agents and command-line programs through the Model Context Protocol.')
    .version(CLI_VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showSuggestionAfterError();
  registerConfigCommands(program, io);
  registerTransferCommands(program, io);
  registerServerCommands(program, io, adhoc);
  registerCheckCommand(program, io, adhoc);
  registerBridgeCommand(program, io);
  for (const command of program.commands) command.exitOverride();
  return program;
}

/**
 * Runs the CLI on `argv` (without node and script) and returns the exit status. The one place errors
 * become exit codes: nothing below calls process.exit.
 */
export async function run(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  try {
    // For server commands, `-- <command…>` is an ad-hoc server, cut off before commander sees it.
    const dash = argv.indexOf('--');
    const serverCommand = argv[0] !== undefined && [...SERVER_COMMANDS, 'check'].includes(argv[0]);
    const adhoc = serverCommand && dash !== -1 ? argv.slice(dash + 1) : undefined;
    const words = adhoc ? argv.slice(0, dash) : [...argv];
    await createProgram(io, adhoc).parseAsync(words, { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed the message or the help already.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (isMcpkitError(error)) {
      io.err(`mcpkit: ${error.message}\n`);
      // 128 + signal number, as shells report a process ended by that signal.
      if (error.code === 'CANCELLED') return error.cause === 'SIGTERM' ? EXIT.terminated : EXIT.cancelled;
      return error.code === 'USAGE' ? EXIT.usage : EXIT.failed;
    }
    io.err(`mcpkit: unexpected error: ${errorMessage(error)}\n`);
    if (error instanceof Error && error.stack) io.err(`${error.stack}\n`);
    return EXIT.failed;
  }
}
