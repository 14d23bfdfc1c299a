/**
 * What a child process's environment holds: stdio servers (client runtime, `mcpkit check`) and bridge
 * tools alike. The SDK passes only HOME, LOGNAME, PATH, SHELL, TERM and USER, and users of every client
 * lose their proxy, CA and locale settings that way; mcpkit passes those too, and where configuration lives
 * (the XDG base directories, `MCPKIT_CONFIG_DIR`: without them `mcpkit tools -- mcpkit gateway` would serve
 * another config than `mcpkit list` shows) — nothing that may hold a secret (tokens, keys, cloud
 * credentials) — then the caller's own variables on top.
 */
const MINIMAL = new Set([
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'TERM',
  'USER',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'LANG',
  'LANGUAGE',
  'TMPDIR',
  'TZ',
  'XDG_CONFIG_HOME',
  'XDG_CONFIG_DIRS',
  'XDG_DATA_HOME',
  'XDG_DATA_DIRS',
  'XDG_STATE_HOME',
  'XDG_CACHE_HOME',
  'XDG_RUNTIME_DIR',
  'MCPKIT_CONFIG_DIR',
]);

/**
 * The environment a child starts with: the minimal set above taken from `parent`, plus the variables
 * `inherit` names (`true`: the whole parent environment), then `extra` on top.
 */
export function childEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> | undefined,
  inherit: boolean | readonly string[] = false,
): Record<string, string> {
  const named = new Set(Array.isArray(inherit) ? inherit : []);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (inherit === true || MINIMAL.has(key) || key.startsWith('LC_') || named.has(key)) env[key] = value;
  }
  return { ...env, ...extra };
}
