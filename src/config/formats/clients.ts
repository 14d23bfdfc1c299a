import { join } from 'node:path';
import { codexFormat } from './codex.js';
import { isRecord, jsonClient, serversAt } from './json-family.js';
import { appDataDir, claudeCodePaths, vscodeUserDir } from './locations.js';
import { withFileSandbox } from './sandbox-keys.js';
import {
  CLIENT_IDS,
  type ClientContext,
  type ClientFormat,
  type ClientId,
  type NativeServer,
} from './types.js';

const REMOTE_TYPES = { stdio: 'stdio', http: 'http', sse: 'sse' } as const;

/** Claude Code: `~/.claude.json`, user servers at the top and per-project ones under `projects`. */
const claudeCode = jsonClient({
  id: 'claude-code',
  label: 'Claude Code',
  syntax: 'json',
  serversKey: 'mcpServers',
  importPaths: claudeCodePaths,
  exportPath: (ctx) => claudeCodePaths(ctx)[0] as string,
  typeNames: REMOTE_TYPES,
  writeType: 'always',
  urlKeys: [{ key: 'url', transport: 'http' }],
  exportUrlKey: { http: 'url', sse: 'url' },
  cwd: false,
  disabled: false,
  toolFilters: false,
  variables: 'posix',
  readServers: readClaudeCode,
  entryPath: claudeCodeEntryPath,
  // `.mcp.json` in the project is Claude Code's project scope: copying its servers into ~/.claude.json
  // would list each twice.
  readsProjectFile: true,
});

/** A server Claude Code keeps for the current directory is replaced there, else at the user level. */
function claudeCodeEntryPath(doc: Record<string, unknown>, ctx: ClientContext, name: string) {
  const projects = isRecord(doc.projects) ? doc.projects : {};
  const project = projects[ctx.cwd];
  const local = isRecord(project) && isRecord(project.mcpServers) ? project.mcpServers : {};
  return Object.hasOwn(local, name) ? ['projects', ctx.cwd, 'mcpServers', name] : ['mcpServers', name];
}

/** The user's servers plus the ones Claude Code keeps for the current directory (which win, as there). */
function readClaudeCode(doc: Record<string, unknown>, ctx: ClientContext) {
  const notes: string[] = [];
  const user = serversAt(doc, ['mcpServers']);
  const projects = isRecord(doc.projects) ? doc.projects : {};
  const local = isRecord(projects[ctx.cwd]) ? serversAt(doc, ['projects', ctx.cwd, 'mcpServers']) : [];
  const localNames = new Set(local.map((s) => s.name));
  const servers: NativeServer[] = [...user.filter((s) => !localNames.has(s.name)), ...local];
  for (const name of localNames) {
    if (user.some((s) => s.name === name)) {
      notes.push(`"${name}" is defined for ${ctx.cwd} and for the user; the project's entry is imported`);
    }
  }
  return { servers, notes };
}

const claudeDesktop = jsonClient({
  id: 'claude-desktop',
  label: 'Claude Desktop',
  syntax: 'json',
  serversKey: 'mcpServers',
  importPaths: (ctx) => [join(appDataDir(ctx), 'Claude', 'claude_desktop_config.json')],
  exportPath: (ctx) => join(appDataDir(ctx), 'Claude', 'claude_desktop_config.json'),
  typeNames: { stdio: 'stdio' },
  writeType: 'never',
  urlKeys: [{ key: 'url', transport: 'http' }],
  // Claude Desktop adds remote servers as connectors in its UI, not in this file.
  exportUrlKey: {},
  cwd: false,
  disabled: false,
  toolFilters: false,
  variables: 'none',
});

const cursor = jsonClient({
  id: 'cursor',
  label: 'Cursor',
  syntax: 'json',
  serversKey: 'mcpServers',
  importPaths: (ctx) => [join(ctx.cwd, '.cursor', 'mcp.json'), join(ctx.home, '.cursor', 'mcp.json')],
  exportPath: (ctx) => join(ctx.home, '.cursor', 'mcp.json'),
  typeNames: { ...REMOTE_TYPES, streamableHttp: 'http' },
  writeType: 'never',
  // Cursor tries Streamable HTTP first and falls back to SSE on the same `url`.
  urlKeys: [{ key: 'url', transport: 'http' }],
  exportUrlKey: { http: 'url', sse: 'url' },
  cwd: false,
  disabled: false,
  toolFilters: false,
  variables: 'env-colon',
});

const vscode = jsonClient({
  id: 'vscode',
  label: 'VS Code',
  syntax: 'jsonc',
  serversKey: 'servers',
  importPaths: (ctx) => [join(ctx.cwd, '.vscode', 'mcp.json'), join(vscodeUserDir(ctx), 'mcp.json')],
  exportPath: (ctx) => join(ctx.cwd, '.vscode', 'mcp.json'),
  typeNames: REMOTE_TYPES,
  writeType: 'always',
  urlKeys: [{ key: 'url', transport: 'http' }],
  exportUrlKey: { http: 'url', sse: 'url' },
  cwd: true,
  disabled: false,
  toolFilters: false,
  variables: 'env-colon',
  sandbox: 'vscode',
  readServers: (doc) => ({ servers: withFileSandbox(doc, serversAt(doc, ['servers'])), notes: [] }),
});

const gemini = jsonClient({
  id: 'gemini',
  label: 'Gemini CLI',
  syntax: 'json',
  serversKey: 'mcpServers',
  importPaths: (ctx) => [
    join(ctx.cwd, '.gemini', 'settings.json'),
    join(ctx.home, '.gemini', 'settings.json'),
  ],
  exportPath: (ctx) => join(ctx.home, '.gemini', 'settings.json'),
  typeNames: REMOTE_TYPES,
  writeType: 'never',
  // Gemini's own split: `httpUrl` is Streamable HTTP, `url` is SSE.
  urlKeys: [
    { key: 'httpUrl', transport: 'http' },
    { key: 'url', transport: 'sse' },
  ],
  exportUrlKey: { http: 'httpUrl', sse: 'url' },
  cwd: true,
  timeoutUnit: 'ms',
  disabled: false,
  toolFilters: true,
  variables: 'posix-plain',
});

const windsurf = jsonClient({
  id: 'windsurf',
  label: 'Windsurf',
  syntax: 'json',
  serversKey: 'mcpServers',
  importPaths: (ctx) => [join(ctx.home, '.codeium', 'windsurf', 'mcp_config.json')],
  exportPath: (ctx) => join(ctx.home, '.codeium', 'windsurf', 'mcp_config.json'),
  typeNames: REMOTE_TYPES,
  writeType: 'never',
  urlKeys: [
    { key: 'serverUrl', transport: 'http' },
    { key: 'url', transport: 'http' },
  ],
  exportUrlKey: { http: 'serverUrl', sse: 'serverUrl' },
  cwd: false,
  disabled: true,
  toolFilters: false,
  variables: 'env-colon',
});

function clinePaths(ctx: ClientContext): string[] {
  const file = 'cline_mcp_settings.json';
  return [
    join(vscodeUserDir(ctx), 'globalStorage', 'saoudrizwan.claude-dev', 'settings', file),
    join(ctx.home, '.cline', 'data', 'settings', file),
  ];
}

const cline = jsonClient({
  id: 'cline',
  label: 'Cline',
  syntax: 'json',
  serversKey: 'mcpServers',
  importPaths: clinePaths,
  exportPath: (ctx) => clinePaths(ctx)[0] as string,
  typeNames: { ...REMOTE_TYPES, streamableHttp: 'http' },
  writeType: 'always',
  nativeType: { http: 'streamableHttp' },
  // Cline reads a `url` without `type` as SSE.
  urlKeys: [{ key: 'url', transport: 'sse' }],
  exportUrlKey: { http: 'url', sse: 'url' },
  cwd: true,
  timeoutUnit: 's',
  disabled: true,
  toolFilters: false,
  variables: 'none',
});

const FORMATS: Record<ClientId, ClientFormat> = {
  'claude-code': claudeCode,
  'claude-desktop': claudeDesktop,
  cursor,
  vscode,
  codex: codexFormat,
  gemini,
  windsurf,
  cline,
};

/** The format of a client by id. */
export function clientFormat(id: ClientId): ClientFormat {
  return FORMATS[id];
}

/** True when `id` names a client mcpkit knows. */
export function isClientId(id: string): id is ClientId {
  return (CLIENT_IDS as readonly string[]).includes(id);
}
