import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One stored version: what GET …/versions/{v} answers (a server.json and the registry's `_meta`). */
export type Stored = {
  server: Record<string, unknown> & { name: string; version: string };
  _meta: Record<string, unknown>;
};

/**
 * An MCP Registry on 127.0.0.1 port 0, shaped like the v0.1 API: `GET /v0.1/servers` (search, version=latest,
 * limit capped at 2 so clients must follow `metadata.nextCursor`), `GET /v0.1/servers/{name}/versions/{v}`
 * (`latest` too), JSON 404s; files under `/files/`; `html: true` answers every request with a web page.
 */
export async function startFakeRegistry(versions: Stored[], files: Record<string, Uint8Array> = {}) {
  const state = { versions, files, html: false, requests: [] as string[] };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    state.requests.push(`${url.pathname}${url.search}`);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (state.html) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><body>Welcome</body></html>');
      return;
    }
    if (url.pathname.startsWith('/files/')) {
      const file = state.files[url.pathname.slice('/files/'.length)];
      if (!file) return json(404, { error: 'no such file' });
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(file);
      return;
    }
    const isLatest = (v: Stored) =>
      (v._meta['io.modelcontextprotocol.registry/official'] as { isLatest?: boolean }).isLatest;
    if (url.pathname === '/v0.1/servers') {
      const search = url.searchParams.get('search')?.toLowerCase();
      let list = state.versions.filter((v) => !search || v.server.name.toLowerCase().includes(search));
      const version = url.searchParams.get('version');
      if (version === 'latest') list = list.filter(isLatest);
      else if (version) list = list.filter((v) => v.server.version === version);
      const start = Number(url.searchParams.get('cursor') ?? '0');
      const limit = Math.min(2, Number(url.searchParams.get('limit') ?? '30'));
      const page = list.slice(start, start + limit);
      const next = start + limit < list.length ? String(start + limit) : undefined;
      return json(200, {
        servers: page,
        metadata: { count: page.length, ...(next ? { nextCursor: next } : {}) },
      });
    }
    const match = /^\/v0\.1\/servers\/([^/]+)\/versions\/([^/]+)$/.exec(url.pathname);
    if (match) {
      const name = decodeURIComponent(match[1] ?? '');
      const version = decodeURIComponent(match[2] ?? '');
      const found = state.versions.find(
        (v) => v.server.name === name && (version === 'latest' ? isLatest(v) : v.server.version === version),
      );
      return found ? json(200, found) : json(404, { error: 'Server not found' });
    }
    json(404, { error: 'Not found' });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    state,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** A stored version with the official metadata the real registry adds. */
export function version(
  server: Stored['server'],
  meta: { status?: string; isLatest?: boolean; statusMessage?: string } = {},
): Stored {
  return {
    server: {
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
      ...server,
    },
    _meta: {
      'io.modelcontextprotocol.registry/official': {
        status: meta.status ?? 'active',
        ...(meta.statusMessage ? { statusMessage: meta.statusMessage } : {}),
        publishedAt: '2026-10-01T10:00:00Z',
        updatedAt: '2026-10-01T10:00:00Z',
        isLatest: meta.isLatest ?? true,
      },
    },
  };
}
