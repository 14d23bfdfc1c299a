import type { Command } from 'commander';
import { Runtime } from '../client/index.js';
import {
  DOCTOR_SOURCES,
  type DoctorFinding,
  type DoctorReport,
  type DoctorServer,
  type DoctorSource,
  diagnose,
  isPlainSecret,
  isStdioServer,
  MASK,
  maskArgs,
  sanitizeName,
  serverTarget,
} from '../config/index.js';
import { McpkitError } from '../errors/index.js';
import { mapConcurrent } from '../internal/concurrency.js';
import { errorMessage } from '../internal/error-message.js';
import type { CliIO } from './io.js';
import { collect, positiveInteger, usage } from './options.js';
import { sandboxOffer } from './sandbox-offer.js';
import { CLI_VERSION } from './version.js';

/** One handshake with a configured server: how long it took and what was agreed, or why it failed. */
interface Probe {
  source: DoctorSource;
  server: string;
  ok: boolean;
  ms: number;
  protocolVersion?: string;
  serverName?: string;
}

interface DoctorFlags {
  json?: boolean;
  client: string[];
  probe?: boolean;
  timeout: number;
}

/** `mcpkit doctor`: what is wrong with this machine's MCP setup, across every client's config. */
export function registerDoctorCommand(program: Command, io: CliIO): void {
  program
    .command('doctor')
    .description("check every MCP client's config on this machine (and mcpkit's) for what will go wrong")
    .option('--json', 'print JSON (secrets masked)')
    .option(
      '-c, --client <name>',
      `only this client (repeatable, or a comma list): ${DOCTOR_SOURCES.join(', ')}`,
      collect,
      [],
    )
    .option('--probe', 'also start each server and time its handshake')
    .option(
      '--timeout <ms>',
      'with --probe: time allowed per handshake',
      positiveInteger('--timeout'),
      15_000,
    )
    .action(async (flags: DoctorFlags) => {
      const sources = parseSources(flags.client);
      const report = await diagnose({ cwd: io.cwd, env: io.env, ...(sources ? { sources } : {}) });
      const probed = flags.probe ? await probeAll(report, flags.timeout, io.env) : [];
      const probes = probed.map((p) => p.probe);
      for (const { probe, error } of probed) {
        if (error !== undefined) report.findings.push(probeFinding(report, probe, error));
      }
      const offer = await sandboxOffer(report);
      if (flags.json)
        io.out(
          `${JSON.stringify({ ...toJson(report, probes), ...(offer ? { sandbox: offer.json } : {}) }, null, 2)}\n`,
        );
      else io.out(formatReport(report, probes) + (offer?.line ?? ''));
      const count = report.findings.length;
      if (count > 0) {
        throw new McpkitError(
          'CHECK_FAILED',
          `doctor found ${count} problem${count === 1 ? '' : 's'}; each says what to change`,
        );
      }
    });
}

function parseSources(values: string[]): DoctorSource[] | undefined {
  const names = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (names.length === 0) return undefined;
  for (const name of names) {
    if (!(DOCTOR_SOURCES as readonly string[]).includes(name))
      usage(`--client: unknown client "${name}"; one of: ${DOCTOR_SOURCES.join(', ')}`);
  }
  return names as DoctorSource[];
}

/** Starts each distinct server once (a few at a time), through the same Runtime the gateway uses. */
async function probeAll(
  report: DoctorReport,
  timeoutMs: number,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ probe: Probe; error?: string }[]> {
  return mapConcurrent(report.servers, 4, async (server) => {
    const started = performance.now();
    const name = sanitizeName(server.name);
    let runtime: Runtime | undefined;
    try {
      runtime = await Runtime.create({
        servers: [{ name, entry: server.entry }],
        startupTimeoutMs: timeoutMs,
        env,
        clientInfo: { name: 'mcpkit-doctor', version: CLI_VERSION },
      });
      const connection = runtime.server(name);
      const probe: Probe = {
        source: server.source,
        server: server.name,
        ok: true,
        ms: Math.round(performance.now() - started),
      };
      if (connection.protocolVersion) probe.protocolVersion = connection.protocolVersion;
      if (connection.serverInfo?.name) probe.serverName = connection.serverInfo.name;
      return { probe };
    } catch (error) {
      const probe = {
        source: server.source,
        server: server.name,
        ok: false,
        ms: Math.round(performance.now() - started),
      };
      return { probe, error: oneLine(errorMessage(error)) };
    } finally {
      await runtime?.close();
    }
  });
}

function probeFinding(report: DoctorReport, probe: Probe, error: string): DoctorFinding {
  const server = report.servers.find(
    (s) => s.source === probe.source && s.name === probe.server,
  ) as DoctorServer;
  return {
    check: 'probe-failed',
    source: server.source,
    label: server.label,
    file: server.file,
    server: server.name,
    message: `no handshake: ${maskSecrets(error, server)}`,
    fix: 'run it by hand to see why (mcpkit check -- <its command>), then fix the entry',
  };
}

/** The error text with every argument, env value and header of the entry that could be a secret masked. */
function maskSecrets(text: string, server: DoctorServer): string {
  const { entry } = server;
  const secrets: string[] = [];
  if (isStdioServer(entry)) {
    const args = entry.args ?? [];
    const masked = maskArgs(args);
    args.forEach((arg, i) => {
      if (masked[i] !== arg) secrets.push(arg);
    });
    for (const [key, value] of Object.entries(entry.env ?? {}))
      if (isPlainSecret(key, value)) secrets.push(value);
  } else {
    for (const [key, value] of Object.entries(entry.headers ?? {}))
      if (isPlainSecret(key, value)) secrets.push(value);
  }
  return secrets.filter((s) => s.length > 3).reduce((out, secret) => out.replaceAll(secret, MASK), text);
}

function oneLine(text: string): string {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .join(' | ');
}

function toJson(report: DoctorReport, probes: Probe[]) {
  return {
    ok: report.findings.length === 0,
    platform: report.platform,
    guiPath: report.guiPath,
    files: report.files,
    servers: report.servers.map((s) => ({
      source: s.source,
      file: s.file,
      name: s.name,
      target: serverTarget(s.entry),
    })),
    findings: report.findings,
    ...(probes.length > 0 ? { probes } : {}),
  };
}

function formatReport(report: DoctorReport, probes: Probe[]): string {
  const lines: string[] = [
    `PATH assumed for GUI clients (Claude Desktop, Cursor, VS Code, Windsurf, Cline) on ${report.platform}: ${report.guiPath}`,
    "CLI clients (Claude Code, Codex, Gemini CLI) and mcpkit: your shell's PATH",
    '',
  ];
  if (report.files.length === 0) lines.push('No MCP client config found on this machine.');
  const printed = new Set<DoctorFinding>();
  const print = (finding: DoctorFinding) => {
    printed.add(finding);
    lines.push(findingLine(finding));
  };
  for (const file of report.files) {
    lines.push(`${file.label}: ${file.file}`);
    const here = report.findings.filter((f) => f.file === file.file && f.check !== 'name-conflict');
    for (const server of report.servers.filter((s) => s.file === file.file && s.source === file.source)) {
      const mine = here.filter((f) => f.server === server.name && f.source === server.source);
      const probe = probes.find((p) => p.source === server.source && p.server === server.name && p.ok);
      const handshake = probe
        ? ` (handshake ${probe.ms} ms, protocol ${probe.protocolVersion ?? '?'}${probe.serverName ? `, ${probe.serverName}` : ''})`
        : '';
      if (mine.length === 0) lines.push(`  ok  ${server.name}${handshake}`);
      mine.forEach(print);
      // A server that starts can still be set up wrong: show the handshake next to its findings too.
      if (mine.length > 0 && probe) lines.push(`  --  ${server.name}:${handshake}`);
    }
    here.filter((f) => !printed.has(f) && f.source === file.source).forEach(print);
  }
  const rest = report.findings.filter((f) => !printed.has(f) && f.check !== 'name-conflict');
  if (rest.length > 0) lines.push('Other:', ...rest.map(findingLine));
  const conflicts = report.findings.filter((f) => f.check === 'name-conflict');
  if (conflicts.length > 0) lines.push('Across clients:', ...conflicts.map(findingLine));
  const count = report.findings.length;
  lines.push(
    '',
    count === 0
      ? `No problems in ${report.servers.length} server${report.servers.length === 1 ? '' : 's'}.`
      : `${count} problem${count === 1 ? '' : 's'} in ${report.servers.length} server${report.servers.length === 1 ? '' : 's'}.`,
  );
  return `${lines.join('\n')}\n`;
}

function findingLine(finding: DoctorFinding): string {
  return `  !!  ${finding.server ? `${finding.server}: ` : ''}${finding.message}; fix: ${finding.fix}`;
}
