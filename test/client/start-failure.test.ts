import { describe, expect, it } from 'vitest';
import { Runtime, ServerStartError } from '../../src/client/index.js';
import { stderrReason } from '../../src/internal/failure-words.js';
import { fixture } from '../helpers/servers.js';

// A stdio server that dies while starting is reported when its process exits (not at the startup
// timeout), with how it ended and the line of its stderr that says why.
async function startFailure(args: string[]): Promise<ServerStartError> {
  const error = await Runtime.create({
    startupTimeoutMs: 60_000, // far beyond the test's budget: the exit must be reported on its own
    servers: [{ name: 'dies', entry: { command: process.execPath, args } }],
  }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ServerStartError);
  return error as ServerStartError;
}

describe('a stdio server that dies at start', () => {
  it("names its exit code and Node's Error: line, not the stack's last lines", async () => {
    const error = await startFailure([fixture('servers/throws-at-start.mjs')]);
    expect(error.category).toBe('handshake');
    expect(error.message).toBe(
      'server "dies" failed to start (handshake): the server exited with code 1 before the handshake finished: ' +
        'Error: cannot open the database at /nope/db.sqlite',
    );
  }, 15_000);

  it('names the signal that killed it, and says when it printed nothing', async () => {
    const error = await startFailure([fixture('servers/throws-at-start.mjs'), '--signal']);
    expect(error.message).toBe(
      'server "dies" failed to start (handshake): the server was killed by SIGKILL before the handshake finished (nothing on stderr)',
    );
  }, 15_000);
});

describe('stderrReason', () => {
  it('takes the last line that reads like an error, in the forms servers print them', () => {
    const node = [
      'node:internal/modules/esm/resolve:854',
      '  throw new ERR_MODULE_NOT_FOUND(packageName, fileURLToPath(base), null);',
      '        ^',
      '',
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /srv/server.js",
      '    at packageResolve (node:internal/modules/esm/resolve:854:9)',
      '    at moduleResolve (node:internal/modules/esm/resolve:927:18)',
      '',
      'Node.js v20.20.2',
    ];
    expect(stderrReason(node)).toBe(
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /srv/server.js",
    );
    const python = [
      'Traceback (most recent call last):',
      '  File "/srv/server.py", line 1, in <module>',
      '    import mcp',
      "ModuleNotFoundError: No module named 'mcp'",
    ];
    expect(stderrReason(python)).toBe("ModuleNotFoundError: No module named 'mcp'");
    expect(
      stderrReason(['starting', 'panic: runtime error: index out of range', 'goroutine 1 [running]:']),
    ).toBe('panic: runtime error: index out of range');
    expect(stderrReason(['listening on stdio', 'could not open /data: permission denied'])).toBe(
      'could not open /data: permission denied',
    );
    expect(stderrReason([])).toBeUndefined();
  });
});
