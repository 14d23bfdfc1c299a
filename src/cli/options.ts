import { isIP } from 'node:net';
import type { Scope } from '../config/paths.js';
import { McpkitError } from '../errors/index.js';

/** Throws the usage error (exit 2) with a message that says what to do. */
export function usage(message: string): never {
  throw new McpkitError('USAGE', message);
}

/** Commander collector for repeatable options. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `--scope` parser. */
export function parseScope(value: string): Scope {
  if (value === 'project' || value === 'user') return value;
  return usage(`--scope must be "project" or "user", got "${value}"`);
}

/** `--transport` parser. */
export function parseTransport(value: string): 'stdio' | 'http' | 'sse' {
  if (value === 'stdio' || value === 'http' || value === 'sse') return value;
  return usage(`--transport must be "stdio", "http" or "sse", got "${value}"`);
}

/** Parser for a positive integer option. */
export function positiveInteger(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0) usage(`${flag} must be a positive integer, got "${value}"`);
    return n;
  };
}

/** `--port` parser: 0 (any free port) to 65535. */
export function portNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > 65535)
    usage(`--port must be a port number from 0 to 65535 (0: any free port), got "${value}"`);
  return n;
}

/** One DNS label: letters, digits and inner hyphens. */
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;

/**
 * `--host` parser: an IP address or a host name. A name whose last label is all digits is a mistyped
 * IPv4 address (`999.1.1.1`), not a name: no top-level domain is numeric.
 */
export function hostAddress(value: string): string {
  const host = value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
  if (isIP(host) !== 0) return host;
  const labels = host.split('.');
  const named =
    host.length <= 253 && labels.every((l) => LABEL.test(l)) && !/^\d+$/.test(labels.at(-1) ?? '');
  if (!named) usage(`--host must be an IP address or a host name, got "${value}"`);
  return host;
}
