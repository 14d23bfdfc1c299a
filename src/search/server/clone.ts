import { lookup } from 'node:dns/promises';
import { lstat, readdir } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { McpkitError } from '../../errors/index.js';
import { spawnGroup, stopGroup } from '../../internal/process-group.js';
import { isPrivateAddress } from './private-address.js';

/** A URL that passed the checks, with the address git must connect to (pinned: no DNS rebinding). */
export interface CheckedUrl {
  url: URL;
  address: string;
  port: number;
}

/**
 * Checks a repository URL before anything is fetched: only https:// and http://, no credentials, and every
 * address the host resolves to public ({@link isPrivateAddress}: loopback, private, link-local, CGNAT and
 * unique-local ranges, also as an IPv6 address that carries one) unless `allowPrivate`. Throws a McpkitError (INVALID_ARGUMENT) saying which rule it broke.
 */
export async function checkCloneUrl(raw: string, allowPrivate: boolean): Promise<CheckedUrl> {
  if (/^[\w.-]+@[\w.-]+:/.test(raw))
    throw refuse(`${raw}: ssh (scp-form) URLs are not accepted; use https://`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse(`${raw} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw refuse(`${raw}: only https:// and http:// repositories can be cloned (not ${url.protocol})`);
  if (url.username || url.password) throw refuse(`${raw}: credentials in the URL are not accepted`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host)
    ? [host]
    : await lookup(host, { all: true, verbatim: true }).then(
        (found) => found.map((a) => a.address),
        (error: Error) => {
          throw refuse(`${raw}: cannot resolve ${host}: ${error.message}`);
        },
      );
  const blocked = addresses.filter(isPrivateAddress);
  if (!allowPrivate && blocked.length > 0)
    throw refuse(
      `${raw}: ${host} is a loopback, private or link-local address (${blocked.join(', ')}); set MCPKIT_ALLOW_PRIVATE_CLONE=1 to allow it`,
    );
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { url, address: addresses[0] as string, port };
}

const refuse = (message: string) => new McpkitError('INVALID_ARGUMENT', message);

/** Options for {@link cloneRepo}. */
export interface CloneOptions {
  timeoutMs?: number;
  /** Largest checkout accepted; the clone is stopped past it. Default 500 MiB. */
  maxBytes?: number;
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * `git clone --depth 1 --no-tags` of a checked URL into `dest`: no prompts, no redirects, no protocol but
 * http(s), git's connection pinned to the checked address, a time limit and a size cap (the process group
 * is killed when either is passed).
 */
export async function cloneRepo(
  checked: CheckedUrl,
  dest: string,
  options: CloneOptions = {},
): Promise<void> {
  const { url, address, port } = checked;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const pinned = isIP(host) ? [] : ['-c', `http.curloptResolve=${host}:${port}:${address}`];
  const args = [
    '-c',
    'protocol.allow=never',
    '-c',
    'protocol.https.allow=always',
    '-c',
    'protocol.http.allow=always',
    '-c',
    'protocol.file.allow=never',
    '-c',
    'http.followRedirects=false',
    '-c',
    'credential.helper=',
    ...pinned,
    'clone',
    '--depth',
    '1',
    '--no-tags',
    '--single-branch',
    '--quiet',
    '--',
    url.href,
    dest,
  ];
  const parent = options.env ?? process.env;
  const env: Record<string, string> = {
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: 'echo',
    GIT_CONFIG_NOSYSTEM: '1',
  };
  for (const key of [
    'PATH',
    'HOME',
    'HTTPS_PROXY',
    'HTTP_PROXY',
    'NO_PROXY',
    'SSL_CERT_FILE',
    'SSL_CERT_DIR',
  ])
    if (parent[key] !== undefined) env[key] = parent[key] as string;
  const child = spawnGroup('git', args, { env });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr = (stderr + text).slice(-2000);
  });
  child.stdout.resume();
  const maxBytes = options.maxBytes ?? 500 * 1024 * 1024;
  let stopped: string | undefined;
  const stop = (why: string) => {
    stopped ??= why;
    void stopGroup(child, { stdinGraceMs: 0, termGraceMs: 1000 });
  };
  const timer = setTimeout(
    () => stop(`took longer than ${Math.round((options.timeoutMs ?? 120_000) / 1000)} s`),
    options.timeoutMs ?? 120_000,
  );
  const sizer = setInterval(() => {
    void sizeOf(dest).then((size) => {
      if (size > maxBytes) stop(`is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB`);
    });
  }, 500);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (stopped) throw new McpkitError('IO', `cloning ${url.href} stopped: the repository ${stopped}`);
    if (code !== 0)
      throw new McpkitError('IO', `git clone ${url.href} failed: ${stderr.trim() || `exit ${code}`}`);
  } finally {
    clearTimeout(timer);
    clearInterval(sizer);
  }
}

async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) total += await sizeOf(full);
    // lstat: a link in the checkout counts as itself, not as whatever it points to (a device, a huge file).
    else total += (await lstat(full).catch(() => ({ size: 0 }))).size;
  }
  return total;
}
