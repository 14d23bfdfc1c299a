import { createHash } from 'node:crypto';
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/client';

/** LLM APIs accept tool names of this shape only. */
const VALID = /^[A-Za-z0-9_-]{1,64}$/;

/** A tool as the registry lists it: its namespaced name, where it lives, what it does. */
export interface ToolSummary {
  /** `mcp__<server>__<tool>`, valid for every LLM API. */
  name: string;
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  description?: string;
  annotations?: ToolAnnotations;
  inputSchema: Tool['inputSchema'];
}

/**
 * The namespaced name of a tool: `mcp__<server>__<tool>`. Characters outside `[A-Za-z0-9_-]` become `_`;
 * a name that had to change or is over 64 characters ends in a hash of the original, so two different
 * tools never share a name.
 */
export function namespacedToolName(server: string, tool: string, hashLength = 8): string {
  return safeToolName(`mcp__${server}__${tool}`, hashLength);
}

/**
 * A name every LLM API accepts (`^[A-Za-z0-9_-]{1,64}$`) for `name`: itself when it already is one;
 * otherwise other characters become `_`, the result is cut to fit and ends in a stable hash of `name`.
 *
 * @example safeToolName('github.create issue') // 'github_create_issue_1f2e3d4c'
 */
export function safeToolName(name: string, hashLength = 8): string {
  if (VALID.test(name)) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, hashLength);
  const cleaned = name.replace(/[^A-Za-z0-9_-]/g, '_');
  return `${cleaned.slice(0, 64 - hashLength - 1)}_${hash}`;
}

/** Tools of many servers under one namespace: list, and resolve a namespaced name back. */
export class ToolRegistry {
  private readonly byName = new Map<string, ToolSummary>();

  constructor(servers: readonly { server: string; tools: readonly Tool[] }[]) {
    for (const { server, tools } of servers) {
      for (const tool of tools) {
        let name = namespacedToolName(server, tool.name);
        // A sanitised name equal to another tool's literal name: lengthen the hash until unique.
        for (let length = 12; this.byName.has(name) && length <= 32; length += 4) {
          name = namespacedToolName(server, tool.name, length);
        }
        const summary: ToolSummary = { name, server, tool: tool.name, inputSchema: tool.inputSchema };
        if (tool.description !== undefined) summary.description = tool.description;
        if (tool.annotations !== undefined) summary.annotations = tool.annotations;
        this.byName.set(name, summary);
      }
    }
  }

  /** Every tool, in server then tool order. */
  list(): ToolSummary[] {
    return [...this.byName.values()];
  }

  /** The server and tool behind a namespaced name. */
  resolve(name: string): { server: string; tool: string } | undefined {
    const found = this.byName.get(name);
    return found && { server: found.server, tool: found.tool };
  }

  get size(): number {
    return this.byName.size;
  }
}

/** The tools a server's `includeTools` / `excludeTools` let through (exclude wins). */
export function filterTools<T extends { name: string }>(
  tools: readonly T[],
  filter: { includeTools?: readonly string[] | undefined; excludeTools?: readonly string[] | undefined },
): T[] {
  return tools.filter((tool) => isToolAllowed(tool.name, filter));
}

/** Whether the filters let a tool through. */
export function isToolAllowed(
  name: string,
  filter: { includeTools?: readonly string[] | undefined; excludeTools?: readonly string[] | undefined },
): boolean {
  if (filter.excludeTools?.includes(name)) return false;
  return filter.includeTools === undefined || filter.includeTools.includes(name);
}
