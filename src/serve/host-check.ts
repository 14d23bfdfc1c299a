import type { IncomingHttpHeaders } from 'node:http';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * A Host header or URL authority as RFC 9110 §7.2 allows it: a host name, IPv4 address or bracketed IPv6
 * address, then an optional port — nothing else (`127.0.0.1:80@evil.example` carries user info and names
 * evil.example to anyone who builds a URL from it).
 */
const AUTHORITY = /^(\[[0-9a-f:.]+\]|[a-z0-9._~-]+)(?::(\d{0,5}))?$/;

/** The hostname of a Host header or URL authority, lower-cased, without the port; '' when malformed. */
function hostnameOf(authority: string): string {
  const parts = AUTHORITY.exec(authority.trim().toLowerCase());
  if (!parts || Number(parts[2] ?? 0) > 65535) return '';
  return parts[1] ?? '';
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
