import { isAbsolute, win32 } from 'node:path';
import { findCommand, isRelativeCommand } from './command-path.js';
import type { DoctorServer, DoctorSource } from './doctor-sources.js';
import { GUI_CLIENTS } from './doctor-sources.js';
import { EDITOR_VARIABLES } from './formats/variable-syntax.js';
import { runsMcpkitGateway } from './gateway-entry.js';
import { isStdioServer } from './schema.js';
import { isPlainSecret, secretArgs } from './secrets.js';
import { findVariables, mapEntryStrings } from './variables.js';

/** What doctor checks; each finding names one. */
export type DoctorCheck =
  | 'unreadable'
  | 'command-not-found'
  | 'command-not-on-gui-path'
  | 'relative-command'
  | 'npx-without-yes'
  | 'secret-in-args'
  | 'secret-in-env'
  | 'secret-in-headers'
  | 'relative-cwd'
  | 'unset-variable'
  | 'unexpanded-variable'
  | 'gateway-in-own-config'
  | 'name-conflict'
  | 'probe-failed';

/** One thing wrong, where, and what to change. Never carries a secret's value. */
export interface DoctorFinding {
  check: DoctorCheck;
  source: DoctorSource;
  /** The client's name as users know it ("Claude Desktop"), or "mcpkit". */
  label: string;
  file: string;
  server?: string;
  /** What is wrong. */
  message: string;
  /** What to change. */
  fix: string;
}

/** The process facts the checks depend on. */
export interface CheckContext {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  /** The PATH of the user's shell (CLI clients get it). */
  shellPath: string;
  /** The PATH GUI clients get. */
  guiPath: string;
}

// Clients that do not expand `${VAR}` in their config: the text reaches the server as written.
const NO_EXPANSION: ReadonlySet<DoctorSource> = new Set(['claude-desktop', 'cline']);
// Clients that write environment references as `${env:NAME}`.
const ENV_COLON: ReadonlySet<DoctorSource> = new Set(['cursor', 'vscode', 'windsurf']);

/** The findings of one server. */
export async function checkServer(server: DoctorServer, ctx: CheckContext): Promise<DoctorFinding[]> {
  const findings: DoctorFinding[] = [];
  const add = (check: DoctorCheck, message: string, fix: string) =>
    findings.push({
      check,
      source: server.source,
      label: server.label,
      file: server.file,
      server: server.name,
      message,
      fix,
    });
  const { entry } = server;
  if (server.source === 'mcpkit' && runsMcpkitGateway(entry)) {
    add(
      'gateway-in-own-config',
      'runs `mcpkit gateway` from inside the config the gateway serves: it would start itself again and again',
      `remove it (mcpkit remove ${server.name}) and give the gateway to your client instead`,
    );
  }
  if (isStdioServer(entry)) {
    await checkCommand(server, ctx, add);
    const args = entry.args ?? [];
    if (
      /^npx(\.cmd|\.exe)?$/i.test(baseName(entry.command)) &&
      !args.some((a) => a === '-y' || a === '--yes')
    ) {
      add(
        'npx-without-yes',
        'runs npx without -y: npx asks before installing, and a client cannot show the prompt, so it hangs',
        'add "-y" as the first argument',
      );
    }
    for (const i of secretArgs(args)) {
      add(
        'secret-in-args',
        `args[${i}] holds a secret, visible to every user of this machine in the process list (ps)`,
        `pass it in env instead (${reference(server.source, 'NAME')}) if the server reads it from there`,
      );
    }
    for (const [key, value] of Object.entries(entry.env ?? {})) {
      if (isPlainSecret(key, value))
        add('secret-in-env', `env.${key} holds a secret written out in the file`, secretFix(server, key));
    }
    if (entry.cwd !== undefined && !isAbsoluteFor(entry.cwd, ctx.platform) && !entry.cwd.startsWith('${')) {
      add(
        'relative-cwd',
        `cwd "${entry.cwd}" is relative: it resolves against wherever the client was started`,
        'use an absolute path',
      );
    }
  } else {
    for (const [key, value] of Object.entries(entry.headers ?? {})) {
      if (isPlainSecret(key, value))
        add(
          'secret-in-headers',
          `headers.${key} holds a secret written out in the file`,
          secretFix(server, key),
        );
    }
  }
  checkVariables(server, ctx, add);
  return findings;
}

type Add = (check: DoctorCheck, message: string, fix: string) => void;

async function checkCommand(server: DoctorServer, ctx: CheckContext, add: Add): Promise<void> {
  if (!isStdioServer(server.entry)) return;
  const { command } = server.entry;
  if (findVariables(command).length > 0) return; // resolved by the client; checked as a variable
  if (isRelativeCommand(command, ctx.platform)) {
    add(
      'relative-command',
      `command "${command}" is relative: it resolves against wherever the client was started`,
      'use an absolute path',
    );
    return;
  }
  const gui = GUI_CLIENTS.has(server.source);
  const path = gui ? ctx.guiPath : ctx.shellPath;
  if (await findCommand(command, path, ctx.platform, ctx.env)) return;
  const onShell = gui ? await findCommand(command, ctx.shellPath, ctx.platform, ctx.env) : undefined;
  if (onShell) {
    add(
      'command-not-on-gui-path',
      `"${command}" is not on the PATH ${server.label} gets (${path}); it is only on your shell's PATH`,
      `use the absolute path "${onShell}"${/^(npx|node|npm)/.test(baseName(command)) ? ' (and add its directory to env.PATH: npx and npm start node by name)' : ''}`,
    );
    return;
  }
  add(
    'command-not-found',
    `command "${command}" is not found on ${gui ? `the PATH ${server.label} gets (${path}) nor ` : ''}your shell's PATH`,
    'install it, or give its absolute path',
  );
}

function checkVariables(server: DoctorServer, ctx: CheckContext, add: Add): void {
  mapEntryStrings(server.entry, (value, where) => {
    for (const ref of findVariables(value)) {
      if (ref.default !== undefined) continue;
      if (ENV_COLON.has(server.source) && EDITOR_VARIABLES.has(ref.name)) continue;
      if (NO_EXPANSION.has(server.source)) {
        add(
          'unexpanded-variable',
          `${where} uses ${ref.raw}, but ${server.label} does not expand variables: the server gets the text "${ref.raw}"`,
          'write the value itself (keep the file private) or start the server through mcpkit',
        );
      } else if (!Object.hasOwn(ctx.env, ref.name) || ctx.env[ref.name] === undefined) {
        add(
          'unset-variable',
          `${where} uses ${ref.raw}, and ${ref.name} is not set in this environment`,
          `set ${ref.name} where ${server.label} starts (GUI apps do not read your shell profile) or give a default`,
        );
      }
    }
    return value;
  });
}

/** How a client's file refers to an environment variable. */
function reference(source: DoctorSource, name: string): string {
  if (ENV_COLON.has(source)) return `"\${env:${name}}"`;
  if (source === 'codex') return `env_vars = ["${name}"]`;
  return `"\${${name}}"`;
}

function secretFix(server: DoctorServer, key: string): string {
  if (NO_EXPANSION.has(server.source)) {
    return `${server.label} cannot read it from the environment: keep ${server.file} private (chmod 600), or run the server through mcpkit with ${reference('mcpkit', key)}`;
  }
  return `write ${reference(server.source, key)} and set ${key} in the environment the client starts in`;
}

function isAbsoluteFor(path: string, platform: NodeJS.Platform): boolean {
  return platform === 'win32' ? win32.isAbsolute(path) : isAbsolute(path);
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
