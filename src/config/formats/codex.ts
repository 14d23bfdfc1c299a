import { join } from 'node:path';
import { isStdioServer, type ServerEntry } from '../schema.js';
import { findVariables } from '../variables.js';
import { isRecord, serversAt } from './json-family.js';
import { codexUserPath } from './locations.js';
import type { ClientFormat, Conversion } from './types.js';

/**
 * Codex keeps servers as `[mcp_servers.NAME]` tables in `~/.codex/config.toml`. It has no `${VAR}`
 * syntax; instead it names variables to pass through (`env_vars`, `env_http_headers`,
 * `bearer_token_env_var`), which map onto mcpkit's references one to one.
 */
export const codexFormat: ClientFormat = {
  id: 'codex',
  label: 'Codex',
  syntax: 'toml',
  importPaths: (ctx) => [join(ctx.cwd, '.codex', 'config.toml'), codexUserPath(ctx)],
  exportPath: codexUserPath,
  serversPath: ['mcp_servers'],
  readServers: (doc) => ({ servers: serversAt(doc, ['mcp_servers']), notes: [] }),
  fromNative,
  toNative,
  // Codex has no variable syntax: its strings read as written.
  importText: (text) => text,
};

const WHOLE_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
/** `${NAME}` or `${NAME:-}`: both pass NAME through (the second only if set), Codex's `env_vars`. */
const PASS_THROUGH = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(:-)?\}$/;
const BEARER_REFERENCE = /^Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

function fromNative(value: unknown): Conversion<Record<string, unknown>> {
  if (!isRecord(value)) return { notes: ['not a table'] };
  const notes: string[] = [];
  const { command, args, env, env_vars, cwd, url, http_headers, env_http_headers, bearer_token_env_var } =
    value;
  const {
    startup_timeout_sec,
    startup_timeout_ms,
    tool_timeout_sec,
    enabled,
    enabled_tools,
    disabled_tools,
  } = value;
  const entry: Record<string, unknown> = {};
  if (url !== undefined && command === undefined) {
    entry.type = 'http';
    entry.url = url;
    const headers: Record<string, unknown> = isRecord(http_headers) ? { ...http_headers } : {};
    if (isRecord(env_http_headers)) {
      for (const [header, variable] of Object.entries(env_http_headers))
        headers[header] = `\${${String(variable)}}`;
    }
    if (typeof bearer_token_env_var === 'string')
      headers.Authorization = `Bearer \${${bearer_token_env_var}}`;
    if (Object.keys(headers).length > 0) entry.headers = headers;
  } else {
    entry.command = command;
    if (args !== undefined) entry.args = args;
    const merged: Record<string, unknown> = isRecord(env) ? { ...env } : {};
    if (Array.isArray(env_vars)) {
      for (const name of env_vars) {
        // "Pass NAME through if set": an unset NAME must not stop the server (see expandServerEntry).
        if (typeof name === 'string') merged[name] = `\${${name}:-}`;
        else notes.push(`env_vars entry ${JSON.stringify(name)} not imported (expected a variable name)`);
      }
    }
    if (Object.keys(merged).length > 0) entry.env = merged;
    if (cwd !== undefined) entry.cwd = cwd;
    // mcpkit's own key (sandbox-keys.ts): Codex ignores it, mcpkit reads it back.
    if (value.sandbox !== undefined) entry.sandbox = value.sandbox;
  }
  const seconds = (v: unknown) => (typeof v === 'number' ? Math.round(v * 1000) : v);
  if (startup_timeout_sec !== undefined) entry.startupTimeout = seconds(startup_timeout_sec);
  else if (startup_timeout_ms !== undefined) entry.startupTimeout = startup_timeout_ms;
  if (tool_timeout_sec !== undefined) entry.timeout = seconds(tool_timeout_sec);
  if (enabled === false) entry.disabled = true;
  if (enabled_tools !== undefined) entry.includeTools = enabled_tools;
  if (disabled_tools !== undefined) entry.excludeTools = disabled_tools;
  const unknownKeys = Object.keys(value).filter((key) => !KNOWN_KEYS.has(key));
  for (const key of unknownKeys) notes.push(`"${key}" not imported (mcpkit has no equivalent)`);
  return { value: entry, notes, unknownKeys };
}

const KNOWN_KEYS = new Set([
  'command',
  'args',
  'env',
  'env_vars',
  'cwd',
  'url',
  'http_headers',
  'env_http_headers',
  'bearer_token_env_var',
  'startup_timeout_sec',
  'startup_timeout_ms',
  'tool_timeout_sec',
  'enabled',
  'enabled_tools',
  'disabled_tools',
  'sandbox',
]);

function toNative(entry: ServerEntry): Conversion<Record<string, unknown>> {
  const notes: string[] = [];
  const literal = (text: string, where: string) => {
    const refs = findVariables(text);
    if (refs.length > 0)
      notes.push(`${where}: Codex does not expand ${refs.map((r) => r.raw).join(', ')}; written as is`);
    return text;
  };
  const out: Record<string, unknown> = {};
  if (isStdioServer(entry)) {
    out.command = literal(entry.command, 'command');
    if (entry.args) out.args = entry.args.map((a, i) => literal(a, `args[${i}]`));
    const env: Record<string, string> = {};
    const passThrough: string[] = [];
    for (const [key, value] of Object.entries(entry.env ?? {})) {
      if (PASS_THROUGH.exec(value)?.[1] === key) passThrough.push(key);
      else env[key] = literal(value, `env.${key}`);
    }
    if (Object.keys(env).length > 0) out.env = env;
    if (passThrough.length > 0) out.env_vars = passThrough;
    if (entry.cwd !== undefined) out.cwd = literal(entry.cwd, 'cwd');
    if (entry.sandbox !== undefined) out.sandbox = entry.sandbox;
  } else {
    if (entry.type === 'sse') return { notes: ['Codex speaks Streamable HTTP only, not SSE; not exported'] };
    out.url = literal(entry.url, 'url');
    const literalHeaders: Record<string, string> = {};
    const envHeaders: Record<string, string> = {};
    for (const [header, value] of Object.entries(entry.headers ?? {})) {
      const bearer = header.toLowerCase() === 'authorization' ? BEARER_REFERENCE.exec(value) : null;
      const whole = WHOLE_REFERENCE.exec(value);
      if (bearer?.[1]) out.bearer_token_env_var = bearer[1];
      else if (whole?.[1]) envHeaders[header] = whole[1];
      else literalHeaders[header] = literal(value, `headers.${header}`);
    }
    if (Object.keys(literalHeaders).length > 0) out.http_headers = literalHeaders;
    if (Object.keys(envHeaders).length > 0) out.env_http_headers = envHeaders;
  }
  if (entry.startupTimeout !== undefined) out.startup_timeout_sec = Math.ceil(entry.startupTimeout / 1000);
  if (entry.timeout !== undefined) out.tool_timeout_sec = Math.ceil(entry.timeout / 1000);
  if (entry.disabled) out.enabled = false;
  if (entry.includeTools) out.enabled_tools = entry.includeTools;
  if (entry.excludeTools) out.disabled_tools = entry.excludeTools;
  return { value: out, notes };
}
