// A private Redis server for tests: Debian's redis-server on a free 127.0.0.1 port, no persistence, its
// working dir a temp dir (removed by close()). .ci/run installs the package.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

/** A running Redis: its URL, and close() that stops it and deletes its dir. */
export interface RedisServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts redis-server; resolves once it accepts connections. */
export async function startRedis(): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'mcpkit-redis-'));
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((done) => child.once('exit', done));
        child.kill('SIGKILL');
        await gone;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
