import { lookup as dnsLookup } from 'node:dns/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * The one way out of a sandbox's network namespace: a proxy on a Unix socket, bound into the sandbox, that
 * speaks HTTP (CONNECT and absolute-URI requests) and SOCKS5 on the same socket (told apart by the first
 * byte), resolves names itself (the sandbox has no DNS), and lets through only the hosts its server may reach.
 */

/** What the proxy saw: a host it let through or refused. */
export interface ProxyEvent {
  outcome: 'allowed' | 'denied';
  host: string;
  port: number;
}

/** How a proxy is made. */
export interface NetworkProxyOptions {
  /** Host patterns (`api.github.com`, `*.example.com`, `host:8080`, `*` for any). */
  allow: readonly string[];
  /** Each decision, as it is made. */
  onEvent?: (event: ProxyEvent) => void;
  /** Resolves a name to an address; default the system resolver (tests map a name to 127.0.0.1). */
  resolve?: (host: string) => Promise<string>;
}

/** True when `host:port` matches one of the patterns. */
export function hostAllowed(patterns: readonly string[], host: string, port: number): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return patterns.some((pattern) => {
    if (pattern === '*') return true;
    const [patternHost = '', patternPort] = pattern.toLowerCase().split(':');
    if (patternPort !== undefined && Number(patternPort) !== port) return false;
    if (patternHost.startsWith('*.')) return name.endsWith(patternHost.slice(1));
    return name === patternHost;
  });
}

/** A running proxy: where it listens, and how to stop it. */
export interface NetworkProxy {
  /** The Unix socket (Linux, bound into the sandbox), or `127.0.0.1:<port>` (macOS, where the profile allows only it). */
  readonly socketPath: string;
  /** The TCP port, when it listens on one. */
  readonly port?: number;
  close(): Promise<void>;
}

/** Starts a proxy listening on the Unix socket `socketPath`, or on a free loopback port when it is `tcp`. */
export async function startNetworkProxy(
  socketPath: string,
  options: NetworkProxyOptions,
): Promise<NetworkProxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    client.once('data', (first: Buffer) => {
      const handle = first[0] === 0x05 ? socks5 : http;
      handle(client, first, options).catch(() => client.destroy());
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (socketPath === 'tcp') server.listen(0, '127.0.0.1', () => resolve());
    else server.listen(socketPath, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : undefined;
  return {
    socketPath: port === undefined ? socketPath : `127.0.0.1:${port}`,
    ...(port === undefined ? {} : { port }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Decides, reports, and on yes opens the upstream connection. */
async function open(options: NetworkProxyOptions, host: string, port: number): Promise<Socket | undefined> {
  const allowed =
    Number.isInteger(port) && port > 0 && port < 65536 && hostAllowed(options.allow, host, port);
  options.onEvent?.({ outcome: allowed ? 'allowed' : 'denied', host, port });
  if (!allowed) return undefined;
  const address = options.resolve
    ? await options.resolve(host)
    : (await dnsLookup(host.replace(/^\[|\]$/g, ''))).address;
  return await new Promise<Socket>((resolve, reject) => {
    const upstream = createConnection({ host: address, port }, () => resolve(upstream));
    upstream.once('error', reject);
  });
}

/** The next chunk a paused socket receives (it is paused again after). */
function nextChunk(client: Socket): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      client.off('close', onClose);
      client.pause();
      resolve(chunk);
    };
    const onClose = () => {
      client.off('data', onData);
      reject(new Error('closed'));
    };
    client.once('data', onData);
    client.once('close', onClose);
    client.resume();
  });
}

/** Reads until the end of an HTTP head (at most 64 KiB). */
async function readHead(client: Socket, first: Buffer): Promise<{ head: string; rest: Buffer }> {
  let buffer = first;
  while (buffer.indexOf('\r\n\r\n') < 0) {
    if (buffer.length > 65_536) throw new Error('head too long');
    buffer = Buffer.concat([buffer, await nextChunk(client)]);
  }
  const end = buffer.indexOf('\r\n\r\n') + 4;
  return { head: buffer.subarray(0, end).toString('latin1'), rest: buffer.subarray(end) };
}

function splitHostPort(authority: string, defaultPort: number): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(authority);
  return { host: match?.[1] ?? authority, port: match?.[2] ? Number(match[2]) : defaultPort };
}

async function http(client: Socket, first: Buffer, options: NetworkProxyOptions): Promise<void> {
  client.pause();
  const { head, rest } = await readHead(client, first);
  const [method = '', target = ''] = head.slice(0, head.indexOf('\r\n')).split(' ');
  let host: string;
  let port: number;
  let forwarded: string | undefined;
  if (method === 'CONNECT') {
    ({ host, port } = splitHostPort(target, 443));
  } else {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      client.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      return;
    }
    host = url.hostname;
    port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    // The origin sees the request as if made to it directly.
    forwarded = head.replace(target, `${url.pathname}${url.search}`);
  }
  const upstream = await open(options, host, port).catch(() => null);
  if (upstream === undefined) {
    const body = `mcpkit sandbox: ${host} is not in this server's network allow list\n`;
    client.end(
      `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    return;
  }
  if (upstream === null) {
    client.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n');
    return;
  }
  if (forwarded === undefined) client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
  else upstream.write(forwarded);
  if (rest.length > 0) upstream.write(rest);
  splice(client, upstream);
}

/** SOCKS5, no authentication, CONNECT only (RFC 1928). */
async function socks5(client: Socket, first: Buffer, options: NetworkProxyOptions): Promise<void> {
  client.pause();
  let buffer = first;
  const need = async (length: number) => {
    while (buffer.length < length) buffer = Buffer.concat([buffer, await nextChunk(client)]);
  };
  await need(2);
  const methods = buffer[1] ?? 0;
  await need(2 + methods);
  buffer = buffer.subarray(2 + methods);
  client.write(Buffer.from([0x05, 0x00]));
  await need(5);
  const type = buffer[3];
  let host: string;
  let length: number;
  if (type === 0x01) {
    length = 4 + 4 + 2;
    await need(length);
    host = [...buffer.subarray(4, 8)].join('.');
  } else if (type === 0x03) {
    length = 5 + (buffer[4] ?? 0) + 2;
    await need(length);
    host = buffer.subarray(5, length - 2).toString('latin1');
  } else if (type === 0x04) {
    length = 4 + 16 + 2;
    await need(length);
    const words = [];
    for (let i = 0; i < 16; i += 2) words.push(buffer.readUInt16BE(4 + i).toString(16));
    host = words.join(':');
  } else {
    client.end(Buffer.from([0x05, 0x08, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
    return;
  }
  const port = buffer.readUInt16BE(length - 2);
  const rest = buffer.subarray(length);
  if (buffer[1] !== 0x01) {
    client.end(Buffer.from([0x05, 0x07, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
    return;
  }
  const upstream = await open(options, host, port).catch(() => null);
  if (!upstream) {
    // 0x02: not allowed by the rule set; 0x04: host unreachable.
    const code = upstream === undefined ? 0x02 : 0x04;
    client.end(Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
    return;
  }
  client.write(Buffer.from([0x05, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
  if (rest.length > 0) upstream.write(rest);
  splice(client, upstream);
}

function splice(client: Socket, upstream: Socket): void {
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
  client.once('close', () => upstream.destroy());
  upstream.once('close', () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
  client.resume();
}
