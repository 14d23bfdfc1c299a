import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../config/run-in-process.js';
import { createWorkspace, type Workspace } from '../helpers/cli.js';
import { fixture, freePort } from '../helpers/servers.js';

// What the server commands show while servers start: retries as they happen, the real cause at the
// end, and with MCPKIT_SHOW_STDERR=1 a server's stderr from its first line. The CLI runs in-process;
// the servers it talks to are real (a closed port, a plain HTTP server, a Node process that throws).
let ws: Workspace;
const servers: Server[] = [];
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  for (const server of servers.splice(0)) server.close();
  await ws.cleanup();
});

/** Writes the project's .mcp.json with these servers. */
async function configure(mcpServers: Record<string, unknown>): Promise<void> {
  await writeFile(join(ws.project, '.mcp.json'), JSON.stringify({ mcpServers }));
}

async function notMcp(): Promise<string> {
  const server = createServer((_, response) => {
    response.writeHead(404, 'Not Found').end('no such page');
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe('server commands while servers start', () => {
  it('shows each retry of an unreachable URL as it happens, then the real cause', async () => {
    const port = await freePort(); // bound, then closed: nothing listens there
    const url = `http://127.0.0.1:${port}/mcp`;
    await configure({ down: { url, startupTimeout: 2500 } });
    const r = await runInProcess(ws, ['call', 'down', 'echo']);
    const refused = `connection refused at 127.0.0.1:${port}`;
    expect(r.stderr).toBe(
      `mcpkit: server "down": ${refused}; retrying in 1 s (attempt 2 of 5)\n` +
        `mcpkit: server "down": ${refused}; retrying in 2 s (attempt 3 of 5)\n` +
        `mcpkit: server "down" failed to start (timeout): no handshake within 2500 ms; last attempt: ${refused}: is the server running?\n`,
    );
    expect(r.code).toBe(1);
  }, 20_000);

  it('says which HTTP status a URL that is not an MCP endpoint answers, at once', async () => {
    const url = await notMcp();
    const r = await runInProcess(ws, ['call', url, 'echo']);
    expect(r.stderr).toMatch(
      /^mcpkit: server "http:\/\/127\.0\.0\.1:\d+\/mcp" failed to start \(handshake\): HTTP 404 Not Found from /,
    );
    expect(r.stderr).toContain(
      `HTTP 404 Not Found from ${url}: is this the MCP endpoint? check the URL path\n`,
    );
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(r.code).toBe(1);
  });

  it('with MCPKIT_SHOW_STDERR=1 shows what a server prints while starting', async () => {
    await configure({ srv: { command: process.execPath, args: [fixture('servers/throws-at-start.mjs')] } });
    const r = await runInProcess(ws, ['call', 'srv', 'x'], { MCPKIT_SHOW_STDERR: '1' });
    const lines = r.stderr.split('\n');
    expect(lines.slice(0, 2)).toEqual(['[srv] starting up', '[srv] loading config from /nope/config.json']);
    expect(lines).toContain('[srv] Error: cannot open the database at /nope/db.sqlite');
    expect(lines.at(-2)).toBe(
      'mcpkit: server "srv" failed to start (handshake): the server exited with code 1 before the handshake finished: Error: cannot open the database at /nope/db.sqlite',
    );
  });

  it('lists the resources of a server that has no resources/templates/list', async () => {
    await configure({
      srv: { command: process.execPath, args: [fixture('servers/no-templates-server.mjs')] },
    });
    const r = await runInProcess(ws, ['resources', 'srv']);
    expect(r.stdout).toMatch(/^srv \(1 resources?, 0 templates\)\n {2}notes:\/\/today {2}today\n$/);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('names the deepest cause of a fetch that failed, and the server by its URL', async () => {
    // Port 1 is on fetch's list of bad ports: undici refuses it before connecting ("fetch failed").
    const r = await runInProcess(ws, ['tools', 'http://127.0.0.1:1/mcp']);
    expect(r.stdout).toBe('http://127.0.0.1:1/mcp: failed (handshake): cannot reach 127.0.0.1:1: bad port\n');
    expect(r.code).toBe(1);
  });
});
