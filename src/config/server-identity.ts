import { maskUrl } from './mask.js';
import { isStdioServer, type ServerEntry } from './schema.js';
import { maskArgs } from './secrets.js';

/**
 * What identifies a server across projects and names: the program and its arguments as written
 * (`stdio:["npx","-y","@modelcontextprotocol/server-memory"]`), or its URL (`https://api.example.com/mcp`).
 * Two projects' `memory` servers that run different things get different identities; the same server under
 * two names gets one. Secrets in arguments and URLs are masked, so the identity can be stored and shown.
 */
export function serverIdentity(entry: ServerEntry): string {
  if (isStdioServer(entry)) return `stdio:${JSON.stringify([entry.command, ...maskArgs(entry.args ?? [])])}`;
  return maskUrl(entry.url);
}
