/**
 * What a stdio server's environment holds. The SDK passes only HOME, LOGNAME, PATH, SHELL, TERM and USER,
 * and users of every client lose their proxy, CA and locale settings that way; mcpkit passes those too,
 * then the entry's `env` on top. `inheritEnv: true` passes the whole parent environment instead.
 */
const INHERITED = new Set([
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
]);

/** The environment a stdio server starts with. */
export function serverEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  entryEnv: Readonly<Record<string, string>> | undefined,
  inheritAll: boolean,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (inheritAll || INHERITED.has(key) || key.startsWith('LC_')) env[key] = value;
  }
  return { ...env, ...entryEnv };
}
