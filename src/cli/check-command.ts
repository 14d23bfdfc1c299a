import type { Command } from 'commander';
import { type CheckTarget, formatReport, GATE_IDS, type GateId, isGateId, runCheck } from '../check/index.js';
import { expandServerEntry, findServer, isStdioServer, loadConfig } from '../config/index.js';
import { McpkitError } from '../errors/index.js';
import { parseJsonText } from '../internal/json-document.js';
import { displayWords } from './format.js';
import type { CliIO } from './io.js';
import { usage } from './options.js';

interface CheckFlags {
  url?: string;
  json?: boolean;
  only?: string;
  timeout?: number;
  startupTimeout?: number;
  slowTool?: string;
  args?: string;
}

/** `mcpkit check (<name> | --url URL | -- <command…>)`: the quality gates; exit 1 when any gate fails. */
export function registerCheckCommand(
  program: Command,
  io: CliIO,
  adhoc: readonly string[] | undefined,
): void {
  program
    .command('check')
    .description('run quality gates against a server: check <name> | --url URL | -- <command…>')
    .argument('[server]', 'a configured server name')
    .option('--url <url>', 'a Streamable HTTP server')
    .option('--json', 'print the report as JSON')
    .option('--only <gates>', `comma-separated gates: ${GATE_IDS.join(', ')}`)
    .option('--timeout <seconds>', 'per-request timeout (default 5)', Number)
    .option(
      '--startup-timeout <seconds>',
      "time for the first start's initialize answer (default 15, or --timeout if larger)",
      Number,
    )
    .option('--slow-tool <name>', 'a long-running tool for the progress and cancellation gates')
    .option('--args <json>', 'arguments for --slow-tool', '{}')
    .addHelpText(
      'after',
      `
The server is a configured name (mcpkit list), --url for a Streamable HTTP server, or a stdio server
given after -- as a command line:
  mcpkit check -- npx -y @modelcontextprotocol/server-everything
`,
    )
    .action(async (server: string | undefined, flags: CheckFlags) => {
      const { target, label } = await resolveCheckTarget(io, server, flags.url, adhoc);
      const only = flags.only?.split(',').map((g) => g.trim());
      const unknown = only?.filter((g) => !isGateId(g));
      if (unknown && unknown.length > 0)
        usage(`--only: unknown gate ${unknown.join(', ')}; gates: ${GATE_IDS.join(', ')}`);
      if (flags.timeout !== undefined && !(flags.timeout > 0))
        usage('--timeout must be a positive number of seconds');
      if (flags.startupTimeout !== undefined && !(flags.startupTimeout > 0))
        usage('--startup-timeout must be a positive number of seconds');
      const slowArgs = parseJsonText('--args', flags.args ?? '{}', false, '');
      const report = await runCheck({
        target,
        label,
        env: io.env,
        ...(only ? { only: only as GateId[] } : {}),
        ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout * 1000 }),
        ...(flags.startupTimeout === undefined ? {} : { startupTimeoutMs: flags.startupTimeout * 1000 }),
        ...(flags.slowTool ? { slowTool: { name: flags.slowTool, args: slowArgs } } : {}),
      });
      io.out(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
      if (report.failed > 0) {
        throw new McpkitError(
          'CHECK_FAILED',
          `${report.failed} gate${report.failed === 1 ? '' : 's'} failed`,
        );
      }
    });
}

async function resolveCheckTarget(
  io: CliIO,
  server: string | undefined,
  url: string | undefined,
  adhoc: readonly string[] | undefined,
): Promise<{ target: CheckTarget; label: string }> {
  const given = [server !== undefined, url !== undefined, adhoc !== undefined && adhoc.length > 0].filter(
    Boolean,
  );
  if (given.length !== 1) usage('check needs exactly one of: a configured name, --url URL, or -- <command…>');
  if (adhoc && adhoc.length > 0) {
    const [command, ...args] = adhoc as [string, ...string[]];
    return { target: { kind: 'stdio', command, args }, label: displayWords(adhoc) };
  }
  if (url !== undefined) {
    if (!/^https?:\/\//i.test(url)) usage(`--url must be an http:// or https:// URL, got "${url}"`);
    return { target: { kind: 'http', url }, label: url };
  }
  const config = await loadConfig({ cwd: io.cwd, env: io.env });
  const found = findServer(config, server as string);
  const entry = expandServerEntry(found.name, found.entry, io.env);
  if (isStdioServer(entry)) {
    const target: CheckTarget = {
      kind: 'stdio',
      command: entry.command,
      args: entry.args ?? [],
      ...(entry.env ? { env: entry.env } : {}),
      ...(entry.cwd ? { cwd: entry.cwd } : {}),
    };
    return { target, label: found.name };
  }
  if (entry.type === 'sse') {
    throw new McpkitError(
      'USAGE',
      `server "${found.name}" uses the legacy SSE transport; check speaks stdio and Streamable HTTP`,
    );
  }
  return {
    target: { kind: 'http', url: entry.url, ...(entry.headers ? { headers: entry.headers } : {}) },
    label: found.name,
  };
}
