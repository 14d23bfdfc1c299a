import { Readable } from 'node:stream';
import { run } from '../../src/cli/run.js';
import type { CliResult, Workspace } from '../helpers/cli.js';

/**
 * Runs the CLI in this process (`run(argv, io)`) in the workspace's project dir with its environment: the
 * same result as spawning `mcpkit`, in milliseconds.
 */
export function runInProcess(
  ws: Workspace,
  args: string[],
  env: Record<string, string> = {},
): Promise<CliResult> {
  return runInProcessAt(args, ws.project, { ...ws.env, ...env });
}

/** `mcpkit …` in this process in `cwd` with exactly `env`: exit code, stdout and stderr. */
export async function runInProcessAt(
  args: string[],
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
    cwd,
    env,
    stdin: Readable.from([]),
    stderrIsTTY: false,
  });
  return { code, stdout, stderr };
}
