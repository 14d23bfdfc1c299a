import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  hostAllowed,
  type NetworkProxy,
  type ProxyEvent,
  startNetworkProxy,
} from '../../src/sandbox/index.js';

/** The sandbox's way out, over its real Unix socket: HTTP CONNECT, absolute-URI requests and SOCKS5. */
let dir: string;
let origin: Server;
let port: number;
let proxy: NetworkProxy;
let events: ProxyEvent[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-proxy-'));
  origin = createServer((req, res) => res.end(`origin saw ${req.url}`));
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  port = (origin.address() as AddressInfo).port;
  events = [];
  proxy = await startNetworkProxy(join(dir, 'proxy.sock'), {
    allow: [`localhost:${port}`],
    onEvent: (event) => events.push(event),
  });
});
afterEach(async () => {
  await proxy.close();
  await new Promise<void>((resolve) => origin.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

/** Sends `bytes` (each after the previous answer) and gives every answer as text. */
function exchange(steps: (string | Buffer)[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(proxy.socketPath);
    const answers: string[] = [];
    let step = 0;
    socket.on('connect', () => socket.write(steps[step++] as string | Buffer));
    socket.on('data', (chunk: Buffer) => {
      answers.push(chunk.toString('latin1'));
      if (step < steps.length) socket.write(steps[step++] as string | Buffer);
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answers));
  });
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`;

describe('the network proxy', () => {
  it('tunnels an allowed CONNECT and forwards an absolute-URI request in origin form', async () => {
    const tunnel = (await exchange([`CONNECT localhost:${port} HTTP/1.1\r\n\r\n`, get('/via-connect')])).join(
      '',
    );
    expect(tunnel).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK/);
    expect(tunnel).toContain('origin saw /via-connect');
    const forward = (await exchange([get(`http://localhost:${port}/plain?x=1`)])).join('');
    expect(forward).toContain('origin saw /plain?x=1');
    expect(events).toEqual([
      { outcome: 'allowed', host: 'localhost', port },
      { outcome: 'allowed', host: 'localhost', port },
    ]);
  });

  it('refuses a host not allowed with 403, and over SOCKS5 with "not allowed by the rule set"', async () => {
    const refused = (await exchange([`CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`])).join('');
    expect(refused).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    expect(refused).toContain("mcpkit sandbox: 127.0.0.1 is not in this server's network allow list");
    const name = Buffer.from('localhost');
    const socksTo = (p: number) =>
      Buffer.concat([
        Buffer.from([0x05, 0x01, 0x00, 0x03, name.length]),
        name,
        Buffer.from([p >> 8, p & 0xff]),
      ]);
    const other = await exchange([Buffer.from([0x05, 0x01, 0x00]), socksTo(port + 1)]);
    expect(other.map((a) => [...Buffer.from(a, 'latin1')].slice(0, 2))).toEqual([
      [0x05, 0x00],
      [0x05, 0x02],
    ]);
    const allowed = await exchange([Buffer.from([0x05, 0x01, 0x00]), socksTo(port), get('/via-socks')]);
    expect(allowed.join('')).toContain('origin saw /via-socks');
    expect(events.map((e) => `${e.outcome} ${e.host}:${e.port}`)).toEqual([
      `denied 127.0.0.1:${port}`,
      `denied localhost:${port + 1}`,
      `allowed localhost:${port}`,
    ]);
  });

  it('matches hosts exactly, by subdomain wildcard, and by port', () => {
    expect(hostAllowed(['api.github.com'], 'API.github.com.', 443)).toBe(true);
    expect(hostAllowed(['api.github.com'], 'evil-api.github.com', 443)).toBe(false);
    expect(hostAllowed(['*.example.com'], 'a.b.example.com', 80)).toBe(true);
    expect(hostAllowed(['*.example.com'], 'example.com', 80)).toBe(false);
    expect(hostAllowed(['*.example.com'], 'badexample.com', 80)).toBe(false);
    expect(hostAllowed(['localhost:8080'], 'localhost', 8081)).toBe(false);
    expect(hostAllowed([], 'localhost', 80)).toBe(false);
  });
});
