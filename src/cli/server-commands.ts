import { readFile } from 'node:fs/promises';
import type { Prompt, Tool } from '@modelcontextprotocol/client';
import type { Command } from 'commander';
import { McpkitError } from '../errors/index.js';
import { parseJsonText } from '../internal/json-document.js';
import { renderPrompt, renderResource, renderToolResult } from './content.js';
import { count, table } from './format.js';
import { type CliIO, readAll } from './io.js';
import { usage } from './options.js';
import { createProgressReporter } from './progress.js';
import {
  failIfAnyFailed,
  type Offering,
  offers,
  only,
  type RuntimeServer,
  request,
  requireOffering,
  rows,
  withRuntime,
} from './server-runtime.js';
import { resolveTargets } from './target.js';

/** Help text of every command that talks to a server: where the server comes from. */
const SERVER_HELP = `
The server is a configured name (mcpkit list), a URL (http:// or https://), or an ad-hoc stdio server
given after -- as a command line; then leave out <server>:
  mcpkit %s -- npx -y @modelcontextprotocol/server-everything
`;

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
  const help = (example: string) => SERVER_HELP.replace('%s', example);

  program
    .command('tools')
    .description('list the tools of one server, or of every configured server')
    .argument('[server]', 'configured name or URL; omit for all (or give -- <command…>)')
    .option('--long', "show each tool's parameters")
    .option('--json', 'print JSON (each tool whole, with its inputSchema)')
    .addHelpText('after', help('tools'))
    .action((server: string | undefined, opts: { json?: boolean; long?: boolean }) =>
      listAcross(io, hasAdhoc ? undefined : server, adhoc, opts.json === true, {
        fetch: async (s) => ({ tools: await s.listTools() }),
        render: (s, { tools }) =>
          `${s.id} (${count(tools.length, 'tool')})\n` +
          (opts.long
            ? tools.map((t) => `  ${t.name}  ${firstLine(t.description)}\n${rows(parameterRows(t))}`).join('')
            : rows(tools.map((t) => ['', t.name, firstLine(t.description)]))),
      }),
    );

  program
    .command('call')
    .description('call a tool: call <server> <tool> [<json> | @file | -]')
    .argument('[args...]', '<server> <tool> [arguments as JSON, @file, or - for stdin]')
    .option('--timeout <seconds>', 'give up after this many seconds', Number)
    .option('--json', 'print the whole result as JSON')
    .addHelpText(
      'after',
      `
The server is a configured name (mcpkit list) or a URL. For an ad-hoc stdio server, give its command
line after -- and leave out <server>: the first word is then the tool.
  mcpkit call echo '{"message":"hi"}' -- npx -y @modelcontextprotocol/server-everything
`,
    )
    .action(async (args: string[], opts: { timeout?: number; json?: boolean }) => {
      const [server, rest] = split(args, 1, 'call');
      const [tool, input, ...extra] = rest;
      if (tool === undefined) usage('call: missing <tool>');
      if (extra.length > 0 || (hasAdhoc && input !== undefined && !looksLikeArguments(input)))
        usage(
          hasAdhoc
            ? `call: with -- <command…> there is no <server>: call <tool> [json] -- <command…> (got ${args.join(' ')})`
            : `call: unexpected arguments: ${extra.join(' ')}`,
        );
      if (opts.timeout !== undefined && !(opts.timeout > 0))
        usage('--timeout must be a positive number of seconds');
      const toolArgs = await readToolArguments(io, input);
      const targets = await resolveTargets(io, server, adhoc);
      await withRuntime(io, targets, 'fail-fast', async (runtime, signal) => {
        const progress = createProgressReporter(io);
        const s = only(runtime);
        const timeout = opts.timeout === undefined ? undefined : { seconds: opts.timeout, flag: '--timeout' };
        const result = await request(
          s,
          `tool "${tool}"`,
          () =>
            s.callTool(tool, toolArgs, {
              signal,
              onProgress: progress.update,
              ...(opts.timeout === undefined ? {} : { timeoutMs: opts.timeout * 1000 }),
            }),
          timeout,
        ).finally(progress.done);
        io.out(opts.json ? `${JSON.stringify(result, null, 2)}\n` : renderToolResult(result));
        if (result.isError) throw new McpkitError('TOOL_ERROR', `tool "${tool}" returned an error (isError)`);
      });
    });

  program
    .command('resources')
    .description('list resources and resource templates')
    .argument('[server]', 'configured name or URL; omit for all')
    .option('--json', 'print JSON')
    .addHelpText('after', help('resources'))
    .action((server: string | undefined, opts: { json?: boolean }) =>
      listAcross(io, hasAdhoc ? undefined : server, adhoc, opts.json === true, {
        offering: 'resources',
        fetch: async (s) => ({
          resources: await s.listResources(),
          templates: await s.listResourceTemplates(),
        }),
        render: (s, { resources, templates }) =>
          `${s.id} (${count(resources.length, 'resource')}, ${count(templates.length, 'template')})\n` +
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
    .addHelpText('after', help('read demo://resource/static/document/features.md'))
    .action(async (args: string[], opts: { json?: boolean }) => {
      const [server, [uri, ...extra]] = split(args, 1, 'read');
      if (uri === undefined) usage('read: missing <uri>');
      if (extra.length > 0) usage(`read: unexpected arguments: ${extra.join(' ')}`);
      await withRuntime(io, await resolveTargets(io, server, adhoc), 'fail-fast', async (runtime, signal) => {
        const s = only(runtime);
        requireOffering(s, 'resources');
        const result = await request(s, `resource ${uri}`, () => s.readResource(uri, { signal }));
        io.out(opts.json ? `${JSON.stringify(result, null, 2)}\n` : renderResource(result));
      });
    });

  program
    .command('prompts')
    .description('list prompts')
    .argument('[server]', 'configured name or URL; omit for all')
    .option('--json', 'print JSON')
    .addHelpText('after', help('prompts'))
    .action((server: string | undefined, opts: { json?: boolean }) =>
      listAcross(io, hasAdhoc ? undefined : server, adhoc, opts.json === true, {
        offering: 'prompts',
        fetch: async (s) => ({ prompts: await s.listPrompts() }),
        render: (s, { prompts }) =>
          `${s.id} (${count(prompts.length, 'prompt')})\n` +
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
    .addHelpText('after', help('prompt args-prompt city=Paris'))
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
        const s = only(runtime);
        requireOffering(s, 'prompts');
        checkPromptArguments(s.id, name, promptArgs, await request(s, 'prompts/list', () => s.listPrompts()));
        const result = await request(s, `prompt "${name}"`, () => s.getPrompt(name, promptArgs, { signal }));
        io.out(opts.json ? `${JSON.stringify(result, null, 2)}\n` : renderPrompt(result));
      });
    });

  program
    .command('ping')
    .description('ping one server, or every configured server')
    .argument('[server]', 'configured name or URL; omit for all')
    .option('--json', 'print JSON: server, status, ms, protocolVersion (or error)')
    .addHelpText('after', help('ping'))
    .action(async (server: string | undefined, opts: { json?: boolean }) => {
      const targets = await resolveTargets(io, hasAdhoc ? undefined : server, adhoc);
      await withRuntime(io, targets, 'log-and-continue', async (runtime) => {
        const report: Record<string, unknown>[] = [];
        for (const s of runtime.servers()) {
          if (s.status !== 'ready') {
            report.push({ server: s.id, status: s.status, ...(s.failure ? { error: s.failure } : {}) });
            continue;
          }
          const ms = await request(s, 'ping', () => s.ping());
          report.push({
            server: s.id,
            status: 'ok',
            ms: Math.round(ms * 10) / 10,
            protocolVersion: s.protocolVersion ?? null,
          });
        }
        if (opts.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
        else {
          const cells = report.map((r) => {
            const failure = r.error as { category?: string; message?: string } | undefined;
            return r.status === 'ok'
              ? [String(r.server), 'ok', `${(r.ms as number).toFixed(1)} ms`, String(r.protocolVersion ?? '')]
              : [String(r.server), String(r.status), `${failure?.category}: ${failure?.message}`];
          });
          io.out(`${table(cells)}\n`);
        }
        failIfAnyFailed(runtime.servers());
      });
    });
}

/**
 * The shape of `tools`, `resources` and `prompts`: fetch a list from every ready server, print JSON or one
 * block per server, report failed servers in place, and fail (exit 1) when any did. A server that does not
 * offer the kind listed says so in one line.
 */
export async function listAcross<T extends object>(
  io: CliIO,
  server: string | undefined,
  adhoc: readonly string[] | undefined,
  json: boolean,
  list: {
    offering?: Offering;
    fetch: (s: RuntimeServer) => Promise<T>;
    render: (s: RuntimeServer, data: T) => string;
  },
): Promise<void> {
  const targets = await resolveTargets(io, server, adhoc);
  await withRuntime(io, targets, 'log-and-continue', async (runtime) => {
    const report = await Promise.all(
      runtime.servers().map(async (s) => ({
        s,
        data: s.status === 'ready' ? await request(s, 'the listing', () => list.fetch(s)) : undefined,
      })),
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
        if (!data) io.out(`${s.id}: ${s.status} (${s.failure?.category}): ${s.failure?.message}\n`);
        else if (list.offering && !offers(s, list.offering))
          io.out(`${s.id}: offers no ${list.offering} (no ${list.offering} capability)\n`);
        else io.out(list.render(s, data));
      }
    }
    failIfAnyFailed(runtime.servers());
  });
}

/** A tool's parameters as rows under it: name, type, required or not, first line of the description. */
function parameterRows(tool: Tool): string[][] {
  const schema = tool.inputSchema as {
    properties?: Record<string, { type?: unknown; description?: string }>;
    required?: string[];
  };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => [
    '   ',
    name,
    `${Array.isArray(property.type) ? property.type.join('|') : String(property.type ?? 'any')}${schema.required?.includes(name) ? '' : '?'}`,
    firstLine(property.description),
  ]);
}

/**
 * Checks the arguments against the prompt's listing before sending: an unknown prompt or a missing
 * required argument is named here, where the server would only say "invalid params".
 */
function checkPromptArguments(
  server: string,
  name: string,
  given: Record<string, string>,
  prompts: readonly Prompt[],
): void {
  const prompt = prompts.find((p) => p.name === name);
  if (!prompt) {
    const known = prompts.map((p) => p.name).join(', ') || 'none';
    usage(`prompt: server "${server}" has no prompt "${name}" (prompts: ${known})`);
  }
  const missing = (prompt.arguments ?? [])
    .filter((a) => a.required && !Object.hasOwn(given, a.name))
    .map((a) => a.name);
  if (missing.length > 0)
    usage(
      `prompt "${name}" needs ${missing.map((m) => `${m}=<value>`).join(' ')} (missing required argument${missing.length === 1 ? '' : 's'}: ${missing.join(', ')})`,
    );
}

/** Whether a word after the tool is meant as its arguments: JSON, @file or - for stdin. */
function looksLikeArguments(word: string): boolean {
  return word === '-' || word.startsWith('@') || /^\s*[[{]/.test(word);
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
