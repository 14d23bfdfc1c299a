import type { IncomingHttpHeaders } from 'node:http';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** The hostname of a Host header or URL authority, lower-cased, without the port. */
function hostnameOf(authority: string): string {
  const trimmed = authority.trim().toLowerCase();
  if (trimmed.startsWith('[')) return trimmed.slice(0, trimmed.indexOf(']') + 1);
  return trimmed.split(':')[0] ?? '';
}

/**
 * DNS-rebinding protection for a local server: the Host header must name this machine (or one of the
 * extra allowed hosts), and an Origin, when a browser sends one, must too.
 */
export function isAllowedRequest(headers: IncomingHttpHeaders, extraHosts: readonly string[] = []): boolean {
  const allowed = (name: string) => LOOPBACK_NAMES.has(name) || extraHosts.includes(name);
  const host = headers.host;
  if (!host || !allowed(hostnameOf(host))) return false;
  const origin = headers.origin;
  if (origin === undefined || origin === 'null') return origin === undefined;
  try {
    return allowed(hostnameOf(new URL(origin).host));
  } catch {
    return false;
  }
}
