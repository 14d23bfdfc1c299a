import { createServer } from 'node:net';

/**
 * A TCP port free right now on 127.0.0.1, for what cannot listen on port 0 itself (server-everything takes a
 * `PORT`, the database engines a `--port`). Another process may take it before it is used: callers that start
 * an engine retry on "address in use".
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
