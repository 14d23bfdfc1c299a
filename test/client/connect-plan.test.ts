import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ConnectAttempt,
  Runtime,
  type RuntimeEventMap,
  type RuntimeServerConfig,
} from '../../src/client/index.js';
import { fetchFailed, httpError, ScriptedTransport, unreachable } from './scripted-transport.js';

// The Runtime's connect plan, in-process: the transport seam gets each attempt, so the order of the
// fallbacks, the retries and the failure messages are visible without a port or a process.
const URL = 'http://mcp.example.test:8123/mcp';

function server(): McpServer {
  return new McpServer({ name: 'remote', version: '1.0.0' }, { capabilities: { tools: {} } });
}

let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

/** A url entry whose attempts are answered in turn by `answers` (the last one repeats). */
function remote(
  attempts: ConnectAttempt[],
  ...answers: (() => ReturnType<NonNullable<RuntimeServerConfig['transport']>>)[]
) {
  return {
    name: 'r',
    entry: { url: URL },
    transport: (attempt: ConnectAttempt) => {
      attempts.push(attempt);
      const answer = answers[Math.min(attempts.length, answers.length) - 1];
      if (!answer) throw new Error('no answer');
      return answer();
    },
  } satisfies RuntimeServerConfig;
}

describe('Runtime connect plan (in-process)', () => {
  it('falls back from Streamable HTTP to legacy SSE on a 404 to the first POST, in that order', async () => {
    const attempts: ConnectAttempt[] = [];
    runtime = await Runtime.create({
      servers: [
        remote(
          attempts,
          () => unreachable(httpError(404, 'Not Found')),
          () => new ScriptedTransport(server()),
        ),
      ],
    });
    expect(runtime.server('r').status).toBe('ready');
    expect(attempts).toEqual([
      { wire: 'streamable-http', handshake: 'negotiate' },
      { wire: 'sse', handshake: 'negotiate' },
    ]);
  });

  it('does not fall back on 401: right transport, wrong credentials', async () => {
    const attempts: ConnectAttempt[] = [];
    const error = await Runtime.create({
      servers: [remote(attempts, () => unreachable(httpError(401, 'Unauthorized')))],
    }).catch((e: unknown) => e);
    expect(attempts.map((a) => a.wire)).toEqual(['streamable-http']);
    expect((error as Error).message).toBe(
      `server "r" failed to start (handshake): HTTP 401 Unauthorized from ${URL}: check the credentials (headers)`,
    );
  });

  it('an sse entry goes to SSE only', async () => {
    const attempts: ConnectAttempt[] = [];
    runtime = await Runtime.create({
      servers: [
        { ...remote(attempts, () => new ScriptedTransport(server())), entry: { type: 'sse', url: URL } },
      ],
    });
    expect(attempts.map((a) => a.wire)).toEqual(['sse']);
  });

  it('retries a refused connect, emitting server_retrying with the cause, then connects', async () => {
    const attempts: ConnectAttempt[] = [];
    const retries: RuntimeEventMap['server_retrying'][0][] = [];
    runtime = await Runtime.create({
      servers: [
        remote(
          attempts,
          () => unreachable(fetchFailed('ECONNREFUSED', { address: '10.1.2.3', port: 8123 })),
          () => new ScriptedTransport(server()),
        ),
      ],
      listeners: { server_retrying: (notice) => retries.push(notice) },
    });
    expect(runtime.server('r').status).toBe('ready');
    expect(retries).toEqual([
      { server: 'r', attempt: 1, attempts: 5, delayMs: 1000, cause: 'connection refused at 10.1.2.3:8123' },
    ]);
    expect(attempts.map((a) => a.wire)).toEqual(['streamable-http', 'streamable-http']);
  });

  it('names the real cause of a failed start, by category', async () => {
    const never = () => unreachable(fetchFailed('ECONNREFUSED'));
    const failures: RuntimeEventMap['server_failed'][0][] = [];
    runtime = await Runtime.create({
      startupPolicy: 'log-and-continue',
      env: {},
      listeners: { server_failed: (failure) => failures.push(failure) },
      servers: [
        { name: 'novar', entry: { url: '${MISSING_HOST}/mcp' } },
        // Only this one waits for its timeout (a refused connect is retried): the others fail at once.
        { ...remote([], never), name: 'refused', entry: { url: URL, startupTimeout: 300 } },
        // A name that does not exist is not retried.
        { ...remote([], () => unreachable(fetchFailed('ENOTFOUND'))), name: 'dns' },
        { ...remote([], () => unreachable(httpError(404, 'Not Found'))), name: 'not-mcp' },
        { ...remote([], () => unreachable(fetchFailed('ERR_SSL_WRONG_VERSION_NUMBER'))), name: 'tls' },
      ],
    });
    const byServer = Object.fromEntries(failures.map(({ server, ...failure }) => [server, failure]));
    expect(byServer).toEqual({
      novar: { category: 'config', message: expect.stringContaining('environment variable MISSING_HOST') },
      'not-mcp': {
        category: 'handshake',
        message: `HTTP 404 Not Found from ${URL}: is this the MCP endpoint? check the URL path`,
      },
      tls: {
        category: 'handshake',
        message:
          'TLS error with mcp.example.test:8123 (ERR_SSL_WRONG_VERSION_NUMBER): check http:// versus https:// and the server certificate',
      },
      refused: {
        category: 'timeout',
        message:
          'no handshake within 300 ms; last attempt: connection refused at mcp.example.test:8123: is the server running?',
      },
      dns: {
        category: 'handshake',
        message: 'DNS lookup failed for mcp.example.test (no such host): check the host name',
      },
    });
    expect(runtime.servers().map((s) => s.failure?.category)).toEqual([
      'config',
      'timeout',
      'handshake',
      'handshake',
      'handshake',
    ]);
  });
});
