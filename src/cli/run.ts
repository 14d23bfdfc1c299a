import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { errorMessage, isMcpkitError } from '../internal/errors.js';
import { registerClientCommands } from './client-commands.js';
import { registerConfigCommands } from './config-commands.js';
import { type CliIO, processIO } from './io.js';

/** Exit statuses: 0 ok, 1 the operation failed, 2 the command line was wrong. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** Builds the `mcpkit` program with every command group registered. */
export function createProgram(io: CliIO): Command {
  const program = new Command('mcpkit')
    .description('Connect AI agents and command-line programs through the Model Context Protocol.')
    .version(version, '-V, --version')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showSuggestionAfterError();
  registerConfigCommands(program, io);
  registerClientCommands(program, io);
  for (const command of program.commands) command.exitOverride();
  return program;
}

/**
 * Runs the CLI on `argv` (without node and script) and returns the exit status. The one place errors
 * become exit codes: nothing below calls process.exit.
 */
export async function run(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  try {
    await createProgram(io).parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed the message or the help already.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (isMcpkitError(error)) {
      io.err(`mcpkit: ${error.message}\n`);
      return error.code === 'USAGE' ? EXIT.usage : EXIT.failed;
    }
    io.err(`mcpkit: unexpected error: ${errorMessage(error)}\n`);
    if (error instanceof Error && error.stack) io.err(`${error.stack}\n`);
    return EXIT.failed;
  }
}
