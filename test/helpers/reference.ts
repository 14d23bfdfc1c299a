import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { root } from './conformance.js';
import { freePort } from './ports.js';

/**
 * The conformance suite's own reference server (`../shared/references/conformance-everything-server`, beside
 * the checkout: see its README). It is installed once into node_modules/.cache (gitignored) and reinstalled
 * only when its package.json changes, so a run pays for `npm install` once.
 */
const source = join(root, '../shared/references/conformance-everything-server');
const installed = join(root, 'node_modules/.cache/conformance-everything-server');

let installing: Promise<string> | undefined;

/** The installed copy's folder; installs it when missing or stale. */
export function installReference(): Promise<string> {
  installing ??= install();
  return installing;
}

async function install(): Promise<string> {
  const wanted = await readFile(join(source, 'package.json'), 'utf8').catch(() => {
    throw new Error(`the reference server is not at ${source}: put ../shared beside the checkout`);
  });
  const have = await readFile(join(installed, 'package.json'), 'utf8').catch(() => undefined);
  const ready = await readFile(join(installed, 'node_modules/.package-lock.json'), 'utf8').catch(
    () => undefined,
  );
  if (have === wanted && ready !== undefined) {
    // The server's source may change without its package.json: copy it each time (cheap).
    await cp(join(source, 'everything-server.ts'), join(installed, 'everything-server.ts'));
    return installed;
  }
  // Installed beside, then renamed into place: a run that stops halfway leaves no half-installed copy.
  await mkdir(dirname(installed), { recursive: true });
  const staging = await mkdtemp(`${installed}-`);
  await cp(source, staging, { recursive: true });
  // Its tsconfig extends the suite repository's root one (three folders up), which is not here; tsx needs
  // none of it, and would otherwise find mcpkit's own (verbatimModuleSyntax breaks the server's imports).
  await writeFile(join(staging, 'tsconfig.json'), '{ "compilerOptions": { "strict": true } }\n');
  await promisify(execFile)('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: staging,
    timeout: 300_000,
  });
  await rm(installed, { recursive: true, force: true });
  await rename(staging, installed);
  return installed;
}

/** A running server: its MCP endpoint, stopped by `stop()` (in a finally). */
export interface Running {
  url: string;
  stop: () => void;
}

/** Starts the reference server on a free port; resolves once it says it is running. */
export async function startReference(): Promise<Running> {
  const dir = await installReference();
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [join(dir, 'node_modules/tsx/dist/cli.mjs'), 'everything-server.ts'],
    {
      cwd: dir,
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('running on')) resolve();
    };
    child.stdout?.on('data', seen);
    child.stderr?.on('data', seen);
    child.once('exit', (code) => reject(new Error(`the reference server exited with ${code}: ${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () => {
      if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    },
  };
}

/**
 * A proxy in front of an MCP endpoint that answers `server/discover` with -32601 (method not found) and
 * passes everything else through as it is: the reference seen as a 2025-only server.
 */
export async function only2025(target: string): Promise<Running> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const message = parse(body);
      if (message?.method === 'server/discover') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message.id ?? null,
            error: { code: -32601, message: 'Method not found: server/discover' },
          }),
        );
        return;
      }
      const headers = { ...req.headers, host: upstream.host };
      const forward = request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      res.on('close', () => forward.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    stop: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

function parse(body: Buffer): { method?: string; id?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
