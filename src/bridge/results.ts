import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ToolContract } from './contract.js';
import type { RunResult } from './runner.js';

/**
 * A finished run as a tool result, per the contract's exit policy (default: non-zero is an error;
 * `errorCodes` lists the only codes that are) and output mode (text, or json → structuredContent).
 */
export function toolResult(
  tool: ToolContract,
  program: string,
  run: RunResult,
  timeoutMs: number,
): CallToolResult {
  const marker = run.dropped > 0 ? `\n[mcpkit: output truncated; ${run.dropped} more bytes dropped]` : '';
  const stdout = run.stdout + marker;
  if (run.spawnError) return error(`cannot start ${program}: ${run.spawnError}`);
  if (run.timedOut) {
    return error(
      `${program} timed out after ${timeoutMs / 1000} s; its process group was stopped. Partial output:\n${stdout}${stderrPart(run)}`,
    );
  }
  if (run.cancelled) return error(`${program} was cancelled`);
  if (run.exitCode === null)
    return error(`${program} was killed by ${run.signal ?? 'a signal'}${stderrPart(run)}\n${stdout}`);
  const failed = tool.errorCodes ? tool.errorCodes.includes(run.exitCode) : run.exitCode !== 0;
  if (failed) {
    return error(
      `${program} exited with code ${run.exitCode}${stderrPart(run)}${run.stdout ? `\nstdout:\n${stdout}` : ''}`,
    );
  }
  if (tool.output === 'json') {
    let value: unknown;
    try {
      value = JSON.parse(run.stdout);
    } catch (cause) {
      return error(`${program} printed output that is not JSON (${(cause as Error).message}):\n${stdout}`);
    }
    const structured =
      typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { result: value };
    return {
      content: [{ type: 'text', text: run.stdout }],
      structuredContent: structured as Record<string, unknown>,
    };
  }
  return { content: [{ type: 'text', text: stdout }] };
}

function stderrPart(run: RunResult): string {
  const text = run.stderr.trimEnd();
  return text ? `\nstderr:\n${text}` : '';
}

function error(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
