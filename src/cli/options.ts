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
