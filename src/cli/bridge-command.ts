import type { Command } from 'commander';
import { contractWarnings } from '../bridge/contract-warnings.js';
import { createBridge, loadContract } from '../bridge/index.js';
import { bindFirst } from './http-port.js';
import type { CliIO } from './io.js';
import { collect, usage } from './options.js';
import { addServeOptions, checkServeFlags } from './serve-options.js';
import { type ServeFlags, serveUntilDone } from './serve-until-done.js';

interface BridgeFlags extends ServeFlags {
  readOnly?: boolean;
  set: string[];
  printTools?: boolean;
}

/** `mcpkit bridge <contract>` serves a contract's tools; `mcpkit bridge lint <contract>` checks it. */
export function registerBridgeCommand(program: Command, io: CliIO, _adhoc?: readonly string[]): void {
  addServeOptions(program.command('bridge'))
    .description(
      'serve a command-line program as MCP tools from a YAML contract; `bridge lint <contract>` checks one',
    )
    .argument('<contract>', 'the contract file (or "lint")')
    .argument('[lint-contract]', 'with lint: the contract to check')
    .option('--read-only', 'serve only tools annotated readOnlyHint: true')
    .option(
      '--set <key=value>',
      'override a session default (repeatable; value parsed as JSON when it can be)',
      collect,
      [],
    )
    .option('--print-tools', 'with lint: print the exact tools/list JSON that will be served')
    .action(async (first: string, second: string | undefined, flags: BridgeFlags) => {
      const lint = first === 'lint';
      const file = lint ? second : first;
      if (file === undefined) usage('bridge lint: missing <contract>');
      if (!lint && second !== undefined) usage(`bridge: unexpected argument "${second}"`);
      if (!lint) checkServeFlags('bridge', flags);
      const port = lint ? undefined : await bindFirst(flags);
      try {
        const loaded = await loadContract(file);
        const bridge = await createBridge(loaded, {
          ...(flags.readOnly ? { readOnly: true } : {}),
          set: parseSets(flags.set),
          env: io.env,
          cwd: io.cwd,
        });
        if (lint) {
          for (const warning of await contractWarnings(loaded, io.env, io.cwd))
            io.err(`warning: ${warning}\n`);
          if (flags.printTools) io.out(`${JSON.stringify({ tools: bridge.tools }, null, 2)}\n`);
          else
            io.out(
              `${loaded.file}: ok, ${bridge.tools.length} tool${bridge.tools.length === 1 ? '' : 's'}\n`,
            );
          return;
        }
        await serveUntilDone(
          io,
          bridge.factory,
          port ? { ...flags, port: port.port } : flags,
          `mcpkit bridge: serving ${loaded.contract.name}`,
          () => bridge.shutdown(),
          bridge.intercept,
        );
      } finally {
        await port?.release();
      }
    });
}

function parseSets(pairs: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) usage(`--set "${pair}": expected key=value`);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // Not JSON: the text itself.
    }
    out[pair.slice(0, eq)] = value;
  }
  return out;
}
