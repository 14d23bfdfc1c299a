import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpkitError } from '../../errors/index.js';

/** What the authorization server sent back to the redirect URI. */
export interface CallbackResult {
  code: string;
  iss?: string;
}

/** A loopback redirect endpoint: `http://127.0.0.1:<port>/callback`, for exactly one good callback. */
export interface Loopback {
  readonly redirectUrl: string;
  /** Resolves with the code of the first callback carrying `state`; rejects on an error answer. */
  callback(state: () => string | undefined, signal: AbortSignal): Promise<CallbackResult>;
  close(): Promise<void>;
}

const PAGE = (text: string) => `<!doctype html><meta charset="utf-8"><title>mcpkit</title><p>${text}</p>\n`;

/**
 * Listens on 127.0.0.1 (never a wildcard address): on `port`, or any free port when it is 0 or taken and
 * `fallback` allows. The server accepts one callback with the right `state` and then closes; any other
 * request gets a 400 and changes nothing.
 */
export async function openLoopback(port: number, fallback = true): Promise<Loopback> {
  let settle: { resolve(result: CallbackResult): void; reject(error: Error): void } | undefined;
  let expected: () => string | undefined = () => undefined;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const params = url.searchParams;
    if (url.pathname !== '/callback' || !settle || params.get('state') !== expected()) {
      res
        .writeHead(400, { 'content-type': 'text/html' })
        .end(PAGE('This is not the login mcpkit is waiting for.'));
      return;
    }
    const error = params.get('error');
    const code = params.get('code');
    if (error || !code) {
      const description = params.get('error_description');
      res
        .writeHead(400, { 'content-type': 'text/html' })
        .end(PAGE('The login did not succeed; see the terminal.'));
      settle.reject(
        new McpkitError(
          'AUTH_FAILED',
          `the authorization server refused the login: ${error ?? 'no code'}${description ? ` (${description})` : ''}`,
        ),
      );
    } else {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE('Logged in. You can close this tab.'));
      const iss = params.get('iss');
      settle.resolve(iss === null ? { code } : { code, iss });
    }
    settle = undefined;
  });
  const actual = await listen(server, port).catch(async (error) => {
    if (!fallback || port === 0) throw error;
    return listen(server, 0);
  });
  return {
    redirectUrl: `http://127.0.0.1:${actual}/callback`,
    callback(state, signal) {
      expected = state;
      return new Promise<CallbackResult>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        settle = {
          resolve: (result) => {
            signal.removeEventListener('abort', onAbort);
            resolve(result);
          },
          reject: (error) => {
            signal.removeEventListener('abort', onAbort);
            reject(error);
          },
        };
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
