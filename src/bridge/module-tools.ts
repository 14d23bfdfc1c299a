import { pathToFileURL } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { McpkitError } from '../errors/index.js';
import type { ModuleProgress, ProgressReporter } from './progress.js';

/** The function an in-process tool exports. */
export type ModuleToolFunction = (
  args: Record<string, unknown>,
  context: { signal: AbortSignal; progress: (update: ModuleProgress) => void },
) => unknown;

export interface ModuleTool {
  fn: ModuleToolFunction;
}

/**
 * Loads an in-process tool once, at bridge start: state in the module stays warm across calls, and a
 * missing export is a start-up error, not a call-time surprise.
 */
export async function loadModuleTool(file: string, exportName: string, tool: string): Promise<ModuleTool> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (cause) {
    throw new McpkitError(
      'CONTRACT_INVALID',
      `tool ${tool}: cannot load module ${file}: ${(cause as Error).message}`,
      { cause },
    );
  }
  const fn = module[exportName];
  if (typeof fn !== 'function') {
    throw new McpkitError('CONTRACT_INVALID', `tool ${tool}: ${file} exports no function "${exportName}"`);
  }
  return { fn: fn as ModuleToolFunction };
}

/**
 * Calls an in-process tool. It may return a CallToolResult (has `content`), a string (one text block), or
 * any other JSON value (structured content plus its JSON text). A throw is an `isError` result.
 */
export async function runModuleTool(
  tool: ModuleTool,
  args: Record<string, unknown>,
  signal: AbortSignal,
  progress: ProgressReporter,
): Promise<CallToolResult> {
  let value: unknown;
  try {
    value = await tool.fn(args, { signal, progress: (update) => progress.report(update) });
  } catch (error) {
    return {
      content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
      isError: true,
    };
  }
  if (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { content?: unknown }).content)
  ) {
    return value as CallToolResult;
  }
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  const structured =
    typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { result: value ?? null };
  return {
    content: [{ type: 'text', text: JSON.stringify(value ?? null) }],
    structuredContent: structured as Record<string, unknown>,
  };
}
