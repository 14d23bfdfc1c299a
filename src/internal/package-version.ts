import { readFileSync } from 'node:fs';

/**
 * mcpkit's version, from its package.json: what the servers mcpkit serves report in serverInfo and what
 * its clients send as clientInfo. The path holds from src/internal, dist/internal and the bundle in dist/bin.
 */
export const PACKAGE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
