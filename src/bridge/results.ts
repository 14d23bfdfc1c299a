import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ToolContract } from './contract.js';
import type { RunResult } from './runner.js';

/** The limits a call ran under, for saying which one stopped it. */
export interface CallLimits {
  memoryBytes?: number;
  cpuSeconds?: number;
}

/** What allocators, runtimes and libc print when an allocation is refused. */
const OUT_OF_MEMORY =
  /out of memory|cannot allocate memory|memory exhausted|allocation failed|bad_alloc|MemoryError|memory allocation of \d+ bytes failed|ENOMEM/i;

/**
 * A finished run as a tool result, per the contract's exit policy (default: non-zero is an error;
 * `errorCodes` lists the only codes that are) and output mode (text, or json → structuredContent).
 */
export function toolResult(
  tool: ToolContract,
  program: string,
  run: RunResult,
  timeoutMs: number,
  limits: CallLimits = {},
): CallToolResult {
  const marker = run.dropped > 0 ? `\n[mcpkit: output truncated; ${run.dropped} more bytes dropped]` : '';
  const stdout = run.stdout + marker;
  if (run.spawnError) return error(`cannot start ${program}: ${run.spawnError}`);
  const hit = limitHit(run, limits);
  if (hit !== undefined) return error(`${program} ${hit} and was stopped${stderrPart(run)}`);
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

/**
 * Which limit stopped a run, if one did. The kernel says so for CPU (SIGXCPU); for memory it only refuses
 * the allocation, so a failed run under a memory limit whose stderr reports a refused allocation counts.
 */
function limitHit(run: RunResult, limits: CallLimits): string | undefined {
  if (run.timedOut || run.cancelled) return undefined;
  if (run.signal === 'SIGXCPU' || (limits.cpuSeconds !== undefined && run.exitCode === 128 + 24))
    return `hit its CPU limit (${limits.cpuSeconds ?? '?'} s)`;
  const failed = run.exitCode === null || run.exitCode !== 0;
  if (limits.memoryBytes !== undefined && failed && OUT_OF_MEMORY.test(run.stderr))
    return `hit its memory limit (${formatBytes(limits.memoryBytes)} per process)`;
  return undefined;
}

function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}

function stderrPart(run: RunResult): string {
  const text = run.stderr.trimEnd();
  return text ? `\nstderr:\n${text}` : '';
}

function error(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
