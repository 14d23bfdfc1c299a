import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { Runtime, type RuntimeServerConfig, type ServerHandle, type StartupPolicy } from '../client/index.js';
import { McpkitError } from '../errors/index.js';
import { parseJsonText } from '../internal/json-document.js';
import { renderPrompt, renderResource, renderToolResult } from './content.js';
import { createElicitationHandler } from './elicit.js';
import { table } from './format.js';
import { type CliIO, readAll } from './io.js';
import { usage } from './options.js';
import { createProgressReporter } from './progress.js';
import { runtimeListeners } from './runtime-listeners.js';
import { resolveTargets } from './target.js';
import { CLI_VERSION } from './version.js';

/**
 * `tools`, `call`, `resources`, `read`, `prompts`, `prompt`, `ping`. `<server>` is a configured name, a
 * URL, or omitted when `-- <command…>` names an ad-hoc stdio server.
 */
export function registerServerCommands(
  program: Command,
  io: CliIO,
  adhoc: readonly string[] | undefined,
): void {
  const hasAdhoc = adhoc !== undefined && adhoc.length > 0;
  /** Splits positionals into the server (unless ad-hoc) and the rest. */
  const split = (args: string[], rest: number, command: string): [string | undefined, string[]] => {
    if (hasAdhoc) return [undefined, args];
    if (args.length === 0 && rest > 0)
      usage(`${command}: missing <server> (a configured name, a URL, or -- <command…>)`);
    return [args[0], args.slice(1)];
  };

  program
    .command('tools')
    .description('list the tools of one server, or of every configured server')
    .argument('[server]', 'configured name or URL; omit for all (or give -- <command…>)')
    .option('--json', 'print JSON')
    .action((server: string | undefined, opts: { json?: boolean }) =>
      listAcross(io, hasAdhoc ? undefined : server, adhoc, opts.json === true, {
        fetch: async (s) => ({ tools: await s.listTools() }),
        render: (s, { tools }) => {
          const head = `${s.id} (${tools.length} tool${tools.length === 1 ? '' : 's'})\n`;
          return head + rows(tools.map((t) => ['', t.name, firstLine(t.description)]));
        },
      }),
    );

  program
    .command('call')
    .description('call a tool: call <server> <tool> [<json> | @file | -]')
    .argument('[args...]', '<server> <tool> [arguments as JSON, @file, or - for stdin]')
    .option('--timeout <seconds>', 'give up after this many seconds', Number)
    .option('--json', 'print the whole result as JSON')
    .action(async (args: string[], opts: { timeout?: number; json?: boolean }) => {
      const [server, rest] = split(args, 1, 'call');
      const [tool, input, ...extra] = rest;
      if (tool === undefined) usage('call: missing <tool>');
      if (extra.length > 0) usage(`call: unexpected arguments: ${extra.join(' ')}`);
      if (opts.timeout !== undefined && !(opts.timeout > 0))
        usage('--timeout must be a positive number of seconds');
      const toolArgs = await readToolArguments(io, input);
      const targets = await resolveTargets(io, server, adhoc);
      await withRuntime(io, targets, 'fail-fast', async (runtime, signal) => {
        const progress = createProgressReporter(io);
        const result = await only(runtime)
          .callTool(tool, toolArgs, {
            signal,
            onProgress: progress.update,
            ...(opts.timeout === undefined ? {} : { timeoutMs: opts.timeout * 1000 }),
          })
          .finally(progress.done);
        io.out(opts.json ? `${JSON.stringify(result, null, 2)}\n` : renderToolResult(result));
        if (result.isError) throw new McpkitError('TOOL_ERROR', `tool "${tool}" returned an error (isError)`);
      });
    });

  program
    .command('resources')
    .description('list resources and resource templates')
    .argument('[server]', 'configured name or URL; omit for all')
    .option('--json', 'print JSON')
    .action((server: string | undefined, opts: { json?: boolean }) =>
      listAcross(io, hasAdhoc ? undefined : server, adhoc, opts.json === true, {
        fetch: async (s) => ({
          resources: await s.listResources(),
          templates: await s.listResourceTemplates(),
        }),
        render: (s, { resources, templates }) =>
          `${s.id} (${resources.length} resources, ${templates.length} templates)\n` +
          rows([
            ...resources.map((r) => ['', r.uri, r.name]),
            ...templates.map((t) => ['', t.uriTemplate, `${t.name} (template)`]),
          ]),
      }),
    );

  program
    .command('read')
    .description('read a resource: read <server> <uri>')
    .argument('[args...]', '<server> <uri>')
    .option('--json', 'print JSON')
    .action(async (args: string[], opts: { json?: boolean }) => {
      const [server, [uri, ...extra]] = split(args, 1, 'read');
      if (uri === undefined) usage('read: missing <uri>');
      if (extra.length > 0) usage(`read: unexpected arguments: ${extra.join(' ')}`);
      await withRuntime(io, await resolveTargets(io, server, adhoc), 'fail-fast', async (runtime, signal) => {
        const result = await only(runtime).readResource(uri, { signal });
        io.out(opts.json ? `${JSON.stringify(result, null, 2)}\n` : renderResource(result));
      });
    });

  program
    .command('prompts')
    .description('list prompts')
    .argument('[server]', 'configured name or URL; omit for all')
    .option('--json', 'print JSON')
    .action((server: string | undefined, opts: { json?: boolean }) =>
      listAcross(io, hasAdhoc ? undefined : server, adhoc, opts.json === true, {
        fetch: async (s) => ({ prompts: await s.listPrompts() }),
        render: (s, { prompts }) =>
          `${s.id} (${prompts.length} prompts)\n` +
          rows(
            prompts.map((p) => [
              '',
              p.name,
              (p.arguments ?? []).map((a) => (a.required ? a.name : `[${a.name}]`)).join(' '),
              firstLine(p.description),
            ]),
          ),
      }),
    );

  program
    .command('prompt')
    .description('render a prompt: prompt <server> <name> [key=value…]')
    .argument('[args...]', '<server> <name> [key=value…]')
    .option('--json', 'print JSON')
    .action(async (args: string[], opts: { json?: boolean }) => {
      const [server, [name, ...pairs]] = split(args, 1, 'prompt');
      if (name === undefined) usage('prompt: missing <name>');
      const promptArgs: Record<string, string> = {};
      for (const pair of pairs) {
        const eq = pair.indexOf('=');
        if (eq <= 0) usage(`prompt: argument "${pair}" is not key=value`);
        promptArgs[pair.slice(0, eq)] = pair.slice(eq + 1);
      }
      await withRuntime(io, await resolveTargets(io, server, adhoc), 'fail-fast', async (runtime, signal) => {
        const result = await only(runtime).getPrompt(name, promptArgs, { signal });
        io.out(opts.json ? `${JSON.stringify(result, null, 2)}\n` : renderPrompt(result));
      });
    });

  program
    .command('ping')
    .description('ping one server, or every configured server')
    .argument('[server]', 'configured name or URL; omit for all')
    .action(async (server: string | undefined) => {
      const targets = await resolveTargets(io, hasAdhoc ? undefined : server, adhoc);
      await withRuntime(io, targets, 'log-and-continue', async (runtime) => {
        const rows: string[][] = [];
        for (const s of runtime.servers()) {
          if (s.status !== 'ready') {
            rows.push([s.id, s.status, `${s.failure?.category}: ${s.failure?.message}`]);
            continue;
          }
          const ms = await s.ping();
          rows.push([s.id, 'ok', `${ms.toFixed(1)} ms`, s.protocolVersion ?? '']);
        }
        io.out(`${table(rows)}\n`);
        failIfAnyFailed(runtime.servers());
      });
    });
}

/**
 * The shape of `tools`, `resources` and `prompts`: fetch a list from every ready server, print JSON or one
 * block per server, report failed servers in place, and fail (exit 1) when any did.
 */
async function listAcross<T extends object>(
  io: CliIO,
  server: string | undefined,
  adhoc: readonly string[] | undefined,
  json: boolean,
  list: { fetch: (s: ServerHandle) => Promise<T>; render: (s: ServerHandle, data: T) => string },
): Promise<void> {
  const targets = await resolveTargets(io, server, adhoc);
  await withRuntime(io, targets, 'log-and-continue', async (runtime) => {
    const report = await Promise.all(
      runtime
        .servers()
        .map(async (s) => ({ s, data: s.status === 'ready' ? await list.fetch(s) : undefined })),
    );
    if (json) {
      const out = report.map(({ s, data }) => ({
        server: s.id,
        status: s.status,
        ...(s.failure ? { error: s.failure } : {}),
        ...data,
      }));
      io.out(`${JSON.stringify(out, null, 2)}\n`);
    } else {
      for (const { s, data } of report) {
        io.out(
          data
            ? list.render(s, data)
            : `${s.id}: ${s.status} (${s.failure?.category}): ${s.failure?.message}\n`,
        );
      }
    }
    failIfAnyFailed(runtime.servers());
  });
}

/** Table rows indented under a server's heading; nothing when there are none. */
function rows(cells: string[][]): string {
  return cells.length > 0 ? `${table(cells)}\n` : '';
}

/**
 * Runs `work` with a Runtime over the targets; Ctrl-C or SIGTERM aborts the work (cancelling calls) and
 * every server is stopped before returning, whatever happens.
 */
async function withRuntime(
  io: CliIO,
  targets: RuntimeServerConfig[],
  startupPolicy: StartupPolicy,
  work: (runtime: Runtime, signal: AbortSignal) => Promise<void>,
): Promise<void> {
  if (targets.length === 0) {
    throw new McpkitError(
      'SERVER_NOT_FOUND',
      'no servers configured; add one with "mcpkit add" or give -- <command…>',
    );
  }
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => controller.abort(signal);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let runtime: Runtime | undefined;
  try {
    runtime = await Runtime.create({
      servers: targets,
      startupPolicy,
      env: io.env,
      clientInfo: { name: 'mcpkit', version: CLI_VERSION },
      handlers: { elicitation: createElicitationHandler(io) },
      listeners: runtimeListeners(io),
    });
    await work(runtime, controller.signal);
  } catch (error) {
    if (controller.signal.aborted) {
      throw new McpkitError('CANCELLED', `cancelled (${String(controller.signal.reason)})`, {
        cause: controller.signal.reason,
      });
    }
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await runtime?.close();
  }
}

/** The one server of a single-target runtime. */
function only(runtime: Runtime): ServerHandle {
  const [server] = runtime.servers();
  if (!server) throw new McpkitError('SERVER_NOT_FOUND', 'no server to talk to');
  return server;
}

function failIfAnyFailed(servers: ServerHandle[]): void {
  const failed = servers.filter((s) => s.status !== 'ready').map((s) => s.id);
  if (failed.length > 0) {
    throw new McpkitError(
      'SERVER_FAILED',
      `${failed.length} of ${servers.length} servers failed: ${failed.join(', ')}`,
    );
  }
}

async function readToolArguments(io: CliIO, input: string | undefined): Promise<Record<string, unknown>> {
  if (input === undefined) return {};
  let text: string;
  let where: string;
  if (input === '-') {
    text = await readAll(io.stdin);
    where = 'stdin';
  } else if (input.startsWith('@')) {
    where = input.slice(1);
    text = await readFile(where, 'utf8').catch((cause: Error) => {
      throw new McpkitError('IO', `cannot read ${where}: ${cause.message}`);
    });
  } else {
    text = input;
    where = 'argument <json>';
  }
  return parseJsonText(where, text, false, '');
}

function firstLine(text: string | undefined): string {
  return (text ?? '').split('\n')[0]?.trim() ?? '';
}
