import type { Command } from 'commander';
import { McpkitError } from '../errors/index.js';
import { runningGateways } from '../gateway/observers/dashboard/runtime-file.js';
import { openBrowser } from '../internal/browser.js';
import type { CliIO } from './io.js';

interface DashboardFlags {
  open: boolean;
  pid?: number;
}

/**
 * `mcpkit dashboard`: opens the web dashboard of a gateway running over HTTP on this machine (the newest
 * one, or `--pid`), found by the runtime file it keeps in the user state dir. The browser gets a
 * one-time login key in the address; the address printed never carries it.
 */
export function registerDashboardCommand(program: Command, io: CliIO): void {
  program
    .command('dashboard')
    .description('open the web dashboard of a running `mcpkit gateway -t http`')
    .option('--no-open', 'print the address only')
    .option('--pid <pid>', 'the gateway with this process id (default: the newest)', (value) => Number(value))
    .action(async (flags: DashboardFlags) => {
      const running = await runningGateways(io.env);
      const gateway = flags.pid === undefined ? running[0] : running.find((g) => g.pid === flags.pid);
      if (!gateway) {
        const others = running.map((g) => `${g.pid} (${g.dashboard})`).join(', ');
        throw new McpkitError(
          'SERVER_NOT_FOUND',
          flags.pid === undefined
            ? 'no gateway is serving HTTP on this machine; start one with `mcpkit gateway -t http`'
            : `no running gateway has pid ${flags.pid}${others ? `; running: ${others}` : ''}`,
        );
      }
      io.out(`${gateway.dashboard}\n`);
      if (running.length > 1 && flags.pid === undefined)
        io.err(
          `mcpkit dashboard: ${running.length} gateways run; this is the newest (--pid picks another)\n`,
        );
      if (!flags.open) return;
      const login = new URL(gateway.dashboard);
      login.searchParams.set('key', gateway.key);
      if (!(await openBrowser(login, { env: io.env })))
        io.err(
          'mcpkit dashboard: no browser could be opened; open the address above with ?token=<your token>\n',
        );
    });
}
