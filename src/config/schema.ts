import { z } from 'zod';

/**
 * The server entry: the shape MCP clients already use in `.mcp.json`. Objects are loose so keys another
 * tool keeps in the same entry survive a read-modify-write.
 */

/** A server name: `[A-Za-z0-9_-]{1,64}` without `__` (which separates server and tool in `mcp__a__b`). */
export const ServerNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 characters of A-Z a-z 0-9 _ -')
  .refine((name) => !name.includes('__'), 'must not contain "__" (it separates server and tool names)');

const StringMapSchema = z.record(z.string(), z.string());
const MillisecondsSchema = z.number().int().positive();
const ToolListSchema = z.array(z.string().min(1));
/** A part of an exposed name: what `mcpkit gateway` puts before or for a tool's own name. */
const NamePartSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 characters of A-Z a-z 0-9 _ -');

/** Keys every transport shares: timeouts in milliseconds, the disabled flag and tool filters. */
const commonShape = {
  /** Per-request timeout in milliseconds. */
  timeout: MillisecondsSchema.optional(),
  /** Time allowed for the connection and handshake, in milliseconds. */
  startupTimeout: MillisecondsSchema.optional(),
  disabled: z.boolean().optional(),
  /** Only these tools are exposed (Gemini's name; Codex's `enabled_tools`). */
  includeTools: ToolListSchema.optional(),
  /** These tools are hidden; wins over `includeTools` (Codex's `disabled_tools`). */
  excludeTools: ToolListSchema.optional(),
  /** For `mcpkit gateway`: this server's tools are always listed, never deferred behind `tool_search`. */
  alwaysLoad: z.boolean().optional(),
  /** For `mcpkit gateway`: exposed names start with this instead of the server's name (`<prefix>__<tool>`). */
  prefix: NamePartSchema.refine((name) => !name.includes('__'), 'must not contain "__"').optional(),
  /** For `mcpkit gateway`: tools exposed under another name (`{ "<tool>": "<new name>" }`), prefix still first. */
  rename: z.record(z.string().min(1), NamePartSchema).optional(),
  /** Where `mcpkit add` found this entry (a registry server or a bundle), for `mcpkit outdated` and `update`. */
  source: z.looseObject({}).optional(),
};

const PathListSchema = z.array(z.string().min(1, 'must not be empty'));
/** A host the sandbox's proxy lets a server reach: `api.github.com`, `*.example.com`, `localhost:8080`. */
const HostPatternSchema = z
  .string()
  .regex(/^(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$/, 'must be a host name, "*.domain" or "host:port"');

/**
 * A stdio server's sandbox (docs/sandbox.md): `true` for the defaults (reads except secrets, writes to its
 * working directory and a private temp dir, no network), `false` to run it unsandboxed on purpose, or what
 * to allow beyond the defaults.
 */
export const SandboxSettingSchema = z.union([
  z.boolean(),
  z.looseObject({
    filesystem: z
      .looseObject({
        /** Paths readable although a default hides them (`~/.aws/config`). */
        read: PathListSchema.optional(),
        /** Paths writable beyond the working directory and the private temp dir. */
        write: PathListSchema.optional(),
        /** Paths hidden beyond the defaults. */
        deny: PathListSchema.optional(),
      })
      .optional(),
    network: z.looseObject({ allow: z.array(HostPatternSchema).optional() }).optional(),
  }),
]);

/** A server entry's `sandbox` setting. */
export type SandboxSetting = z.infer<typeof SandboxSettingSchema>;

/** A server started as a child process speaking MCP on stdin/stdout. */
export const StdioServerSchema = z.looseObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1, 'must not be empty'),
  args: z.array(z.string()).optional(),
  env: StringMapSchema.optional(),
  cwd: z.string().min(1).optional(),
  /** Pass the whole parent environment, not only the safe list (PATH, HOME, proxies, CA, locale…). */
  inheritEnv: z.boolean().optional(),
  /** Run the server in an OS sandbox (docs/sandbox.md); absent or `false`: unsandboxed. */
  sandbox: SandboxSettingSchema.optional(),
  /**
   * For gateway replicas (`--session-key`): this server must run once (it keeps state), so replicas do not
   * start it but reach it at this URL, where one process serves it (docs/scale-out.md).
   */
  single: z
    .string()
    .regex(/^(https?:\/\/|\$\{)/i, 'must be an http:// or https:// URL')
    .optional(),
  ...commonShape,
});

/**
 * How mcpkit logs in to a remote server that asks for OAuth (`mcpkit auth login <server>`). Everything is
 * optional: without it mcpkit discovers the authorization server and registers itself. Secrets go in as
 * `${VAR}` references.
 */
export const OAuthSettingsSchema = z.looseObject({
  /** A client registered with the authorization server beforehand (else CIMD, else dynamic registration). */
  clientId: z.string().min(1).optional(),
  clientSecret: z.string().optional(),
  /** `client_credentials`: a machine login with the client's own credentials, no browser (SEP-1046). */
  grant: z.enum(['authorization_code', 'client_credentials']).optional(),
  /** How the client authenticates at the token endpoint (default: what the server supports). */
  tokenEndpointAuthMethod: z
    .enum(['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'])
    .optional(),
  /** A PEM private key for `private_key_jwt` (a `${VAR}`), and its algorithm (default ES256). */
  privateKey: z.string().optional(),
  signingAlgorithm: z.string().optional(),
  /** The scopes to ask for (default: what the server's 401 or metadata says). */
  scope: z.string().optional(),
  /** An https URL of mcpkit's Client ID Metadata Document, used when the server supports CIMD. */
  clientMetadataUrl: z.string().optional(),
  /** The port of the loopback redirect (`http://127.0.0.1:<port>/callback`); default: any free one. */
  callbackPort: z.number().int().min(1).max(65535).optional(),
});

/** A server entry's `oauth` settings. */
export type OAuthSettings = z.infer<typeof OAuthSettingsSchema>;

/** A remote server: Streamable HTTP (`type` "http" or absent) or the legacy HTTP+SSE transport. */
export const RemoteServerSchema = z.looseObject({
  type: z.enum(['http', 'sse']).optional(),
  // Checked loosely: `${HOST}` may stand for the host until the server is used.
  url: z
    .string()
    .regex(/^(https?:\/\/|\$\{)/i, 'must be an http:// or https:// URL (or start with a ${VAR})'),
  headers: StringMapSchema.optional(),
  /** OAuth settings; `false` never logs in (a 401 stays an error). */
  oauth: z.union([z.literal(false), OAuthSettingsSchema]).optional(),
  ...commonShape,
});

/** Any server entry. Prefer {@link parseServerEntry}, which picks the branch and reports clear paths. */
export const ServerEntrySchema = z.union([StdioServerSchema, RemoteServerSchema]);

/** A server entry started as a local process (`command`, `args`, `env`, `cwd`). */
export type StdioServer = z.infer<typeof StdioServerSchema>;
/** A server entry reached over the network (`url`, `headers`; `type` http or sse). */
export type RemoteServer = z.infer<typeof RemoteServerSchema>;
/** One named item of `mcpServers`: a stdio or a remote server, with the keys mcpkit does not model kept. */
export type ServerEntry = z.infer<typeof ServerEntrySchema>;
/** How mcpkit reaches a server (named apart from the SDK's `Transport`, the live connection object). */
export type TransportKind = 'stdio' | 'http' | 'sse';

/** One problem found in a value: where (JSON path segments from the entry) and what. */
export interface ValidationIssue {
  path: (string | number)[];
  message: string;
}

/** What {@link parseServerEntry} returns: the entry, or every issue with its JSON path. */
export type ParseEntryResult = { ok: true; entry: ServerEntry } | { ok: false; issues: ValidationIssue[] };

/**
 * Validates an unknown value as a server entry, choosing the stdio or remote schema by its keys so the
 * errors talk about the branch the user meant (a union's errors list both).
 */
export function parseServerEntry(value: unknown): ParseEntryResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, issues: [{ path: [], message: 'must be an object' }] };
  }
  const record = value as Record<string, unknown>;
  const hasCommand = 'command' in record;
  const hasUrl = 'url' in record;
  if (hasCommand && hasUrl) {
    return {
      ok: false,
      issues: [{ path: [], message: 'has both "command" (stdio) and "url" (remote); keep one' }],
    };
  }
  const type = record.type;
  if (type !== undefined && type !== 'stdio' && type !== 'http' && type !== 'sse') {
    return { ok: false, issues: [{ path: ['type'], message: 'must be "stdio", "http" or "sse"' }] };
  }
  let schema: typeof StdioServerSchema | typeof RemoteServerSchema;
  if (hasCommand || type === 'stdio') schema = StdioServerSchema;
  else if (hasUrl || type === 'http' || type === 'sse') schema = RemoteServerSchema;
  else {
    return {
      ok: false,
      issues: [{ path: [], message: 'needs "command" (a stdio server) or "url" (an http/sse server)' }],
    };
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, entry: parsed.data };
  return {
    ok: false,
    issues: parsed.error.issues.map((issue) => ({
      path: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
      message: issue.message,
    })),
  };
}

/** A client's server name made valid for mcpkit: other characters become `-`, `__` becomes `_`. */
export function sanitizeName(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/_{2,}/g, '_')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  return cleaned === '' ? 'server' : cleaned;
}

/** Checks a name; returns the reason it is invalid, or undefined when it is fine. */
export function checkServerName(name: string): string | undefined {
  const parsed = ServerNameSchema.safeParse(name);
  return parsed.success ? undefined : parsed.error.issues[0]?.message;
}

/** The transport an entry uses. */
export function transportOf(entry: ServerEntry): TransportKind {
  if ('command' in entry) return 'stdio';
  return entry.type === 'sse' ? 'sse' : 'http';
}

/** True for a stdio entry. */
export function isStdioServer(entry: ServerEntry): entry is StdioServer {
  return 'command' in entry;
}

/** Formats JSON path segments as `a.b[0]["odd key"]`, the form error messages use. */
export function formatJsonPath(segments: readonly (string | number)[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out === '' ? '(root)' : out;
}

/** Issues as one line: `path: message; path: message`, with `prefix` before each path. */
export function formatIssues(
  issues: readonly ValidationIssue[],
  prefix: readonly (string | number)[] = [],
): string {
  return issues.map((issue) => `${formatJsonPath([...prefix, ...issue.path])}: ${issue.message}`).join('; ');
}
