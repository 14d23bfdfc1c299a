import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { Runtime } from '../client/index.js';
import { StdioTransport } from '../client/stdio-transport.js';
import {
  addServers,
  expandServerEntry,
  findServer,
  isStdioServer,
  loadConfig,
  type SandboxSetting,
  type StdioServer,
} from '../config/index.js';
import { McpkitError } from '../errors/index.js';
import { childEnvironment } from '../internal/child-environment.js';
import { runToEnd } from '../internal/run-to-end.js';
import { onStop } from '../internal/signals.js';
import {
  denialsOf,
  learnedProfile,
  type Observed,
  type ProxyEvent,
  pathAccesses,
  sandboxParentDir,
} from '../sandbox/index.js';
import { count } from './format.js';
import type { CliIO } from './io.js';
import { usage } from './options.js';
import { sandboxOn } from './sandbox-offer.js';
import { relaySession } from './sandbox-serve.js';
import { CLI_VERSION } from './version.js';

/** `mcpkit sandbox learn|check <server>`: a profile from what a server does, and its denials (docs/sandbox.md). */
export function registerSandboxCommands(program: Command, io: CliIO): void {
  const sandbox = program
    .command('sandbox')
    .description("sandbox stdio servers; learn and check a server's sandbox");
  sandbox
    .command('on')
    .description('run these stdio servers (or --all) in a sandbox with the defaults')
    .argument('[servers...]', 'configured stdio servers')
    .option('--all', 'every stdio server without a sandbox setting')
    .action((names: string[], opts: { all?: boolean }) => sandboxOn(io, names, opts.all ?? false));
  sandbox
    .command('learn')
    .description(
      'run the server with everything allowed but watched; print the smallest profile that covers it',
    )
    .argument('<server>', 'a configured stdio server')
    .option('--session <file>', 'tool calls to make, one JSON per line: {"tool": "…", "arguments": {…}}')
    .option('--for <duration>', 'keep it running this long after the calls (e.g. 30s, 2m)', parseDuration)
    .option('--serve', 'serve it on stdio to a client you run; the session is what that client does')
    .option('--record <file>', 'with --serve: keep the session (for --session later)')
    .option('--write', "write the profile into the server's entry")
    .action(async (name: string, opts: RunFlags & { write?: boolean }) => {
      const { server, observed, calls, context } = await observe(io, name, 'learn', opts);
      // Serving: stdout is the protocol's, the report goes to stderr.
      const say = opts.serve ? io.err : io.out;
      const learned = learnedProfile(observed, context);
      const before = isStdioServer(server.entry) ? server.entry.sandbox : undefined;
      say(
        `Learned the sandbox of "${name}" from ${count(calls, 'tool call')} (${count(observed.accesses.length, 'path')} touched, ${count(new Set(observed.hosts.map((h) => h.host)).size, 'host')} reached):\n`,
      );
      io.out(sandboxDiff(before, learned));
      if (!opts.write) {
        io.out(
          `Write it with: mcpkit sandbox learn ${name} --write${opts.session ? ` --session ${opts.session}` : ''}\n`,
        );
        return;
      }
      const result = await addServers([{ name, entry: { ...server.entry, sandbox: learned } }], {
        cwd: io.cwd,
        env: io.env,
        scope: server.scope,
        force: true,
      });
      say(`Wrote the sandbox of "${name}" into ${result.file}\n`);
    });
  sandbox
    .command('check')
    .description(
      "replay a session under the server's sandbox; report each denial and the line that allows it",
    )
    .argument('<server>', 'a configured stdio server')
    .option('--session <file>', 'tool calls to make, one JSON per line: {"tool": "…", "arguments": {…}}')
    .option('--for <duration>', 'keep it running this long after the calls (e.g. 30s, 2m)', parseDuration)
    .option('--serve', 'serve it on stdio to a client you run; the session is what that client does')
    .action(async (name: string, opts: RunFlags) => {
      const { server, observed, calls, context } = await observe(io, name, 'check', opts);
      const say = opts.serve ? io.err : io.out;
      const setting = (server.entry as StdioServer).sandbox || true;
      const denials = denialsOf(observed, context, setting);
      for (const denial of denials) say(`denied ${denial.what}: ${denial.fix}\n`);
      if (denials.length === 0) {
        say(`No denials: "${name}" ran ${count(calls, 'tool call')} within its sandbox\n`);
        return;
      }
      throw new McpkitError(
        'SERVER_FAILED',
        `${count(denials.length, 'denial')} in ${count(calls, 'tool call')} of "${name}"`,
      );
    });
}

interface RunFlags {
  session?: string;
  for?: number;
  serve?: boolean;
  record?: string;
}

/** `30s`, `2m`, `500ms`, or seconds. */
function parseDuration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  if (!match) return usage(`--for "${value}": expected a duration like 30s, 2m or 500ms`);
  const n = Number(match[1]);
  return match[2] === 'ms' ? n : match[2] === 'm' ? n * 60_000 : n * 1000;
}

/** A session file's calls. */
async function readSession(
  file: string,
  cwd: string,
): Promise<{ tool: string; arguments: Record<string, unknown> }[]> {
  const text = await readFile(resolve(cwd, file), 'utf8').catch((error: NodeJS.ErrnoException) =>
    usage(`--session ${file}: cannot read it (${error.code ?? error.message})`),
  );
  return text
    .split('\n')
    .map((line, index) => [line.trim(), index + 1] as const)
    .filter(([line]) => line !== '')
    .map(([line, number]) => {
      let call: unknown;
      try {
        call = JSON.parse(line);
      } catch {
        return usage(`--session ${file}:${number}: not JSON`);
      }
      const c = call as { tool?: unknown; arguments?: unknown };
      if (typeof c.tool !== 'string')
        return usage(`--session ${file}:${number}: expected {"tool": "…", "arguments": {…}}`);
      return { tool: c.tool, arguments: (c.arguments ?? {}) as Record<string, unknown> };
    });
}

/** Runs the server once under strace (learn: everything allowed; check: its own sandbox) and reports what it saw. */
async function observe(io: CliIO, name: string, mode: 'learn' | 'check', opts: RunFlags) {
  const config = await loadConfig({ cwd: io.cwd, env: io.env });
  const server = findServer(config, name);
  if (!isStdioServer(server.entry))
    usage(`"${name}" is a remote server: only a stdio server runs in a sandbox`);
  const session = opts.session ? await readSession(opts.session, io.cwd) : [];
  const strace = await runToEnd('strace', ['-V'], childEnvironment(io.env, undefined));
  if (strace.error?.code === 'ENOENT')
    throw new McpkitError(
      'SERVER_FAILED',
      `sandbox ${mode} watches the server with strace, which is not installed (apt-get install strace)`,
    );
  const entry = expandServerEntry(name, server.entry, io.env) as StdioServer;
  const cwd = resolve(io.cwd, entry.cwd ?? '.');
  const traceDir = await mkdtemp(join(tmpdir(), 'mcpkit-sandbox-trace-'));
  const traceFile = join(traceDir, 'strace.log');
  const hosts: ProxyEvent[] = [];
  const env = childEnvironment(io.env, entry.env, entry.inheritEnv === true);
  const transport = () =>
    new StdioTransport({
      command: entry.command,
      args: entry.args ?? [],
      env,
      cwd,
      server: name,
      sandbox: entry.sandbox || true,
      sandboxOptions: {
        learn: mode === 'learn',
        traceFile,
        watchNetwork: true,
        onProxyEvent: (event) => {
          if (event.outcome === (mode === 'learn' ? 'allowed' : 'denied')) hosts.push(event);
        },
      },
    });
  const controller = new AbortController();
  const unregister = onStop((cause) => controller.abort(cause));
  let runtime: Runtime | undefined;
  let calls = 0;
  try {
    if (opts.serve) {
      if (opts.session) usage('--serve and --session: the session is either served or replayed, not both');
      const served = await relaySession(io, transport(), controller.signal);
      calls = served.length;
      if (opts.record)
        await writeFile(
          resolve(io.cwd, opts.record),
          served.map((call) => `${JSON.stringify(call)}\n`).join(''),
        );
      return await finish();
    }
    runtime = await Runtime.create({
      servers: [{ name, entry, transport }],
      env: io.env,
      clientInfo: { name: 'mcpkit', version: CLI_VERSION },
      signal: controller.signal,
    });
    const handle = runtime.server(name);
    await handle.listTools();
    for (const call of session) {
      await handle.callTool(call.tool, call.arguments, { signal: controller.signal }).catch(() => undefined);
      calls++;
    }
    if (opts.for) await new Promise((done) => setTimeout(done, opts.for).unref?.());
  } finally {
    unregister();
    await runtime?.close();
  }
  return await finish();

  async function finish() {
    const log = await readFile(traceFile, 'utf8').catch(() => '');
    await rm(traceDir, { recursive: true, force: true });
    const observed: Observed = { accesses: pathAccesses(log, cwd), hosts, privateParent: sandboxParentDir() };
    return { server, observed, calls, context: { cwd, env: env as Record<string, string | undefined> } };
  }
}

/** The entry's sandbox before and after, `-` old and `+` new lines. */
function sandboxDiff(before: SandboxSetting | undefined, after: SandboxSetting): string {
  const lines = (value: SandboxSetting | undefined) =>
    value === undefined ? [] : JSON.stringify({ sandbox: value }, null, 2).split('\n').slice(1, -1);
  const old = lines(before);
  const now = lines(after);
  const removed = old.filter((l) => !now.includes(l)).map((l) => `  - ${l.trim()}`);
  const added = now.filter((l) => !old.includes(l)).map((l) => `  + ${l.trim()}`);
  return [...removed, ...added].map((l) => `${l}\n`).join('');
}
