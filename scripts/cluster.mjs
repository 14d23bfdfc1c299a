#!/usr/bin/env node
// A local cluster of mcpkit gateways: nginx (round robin, no session affinity) in front of N replicas of
// `mcpkit gateway -t http` that share a session key and a Redis, all from Debian packages, on 127.0.0.1, in a
// temp dir. Runs in the foreground; Ctrl-C (or SIGTERM) drains the replicas, stops everything and deletes the
// dir. See docs/scale-out.md.
//
//   node scripts/cluster.mjs [--replicas 3] [--port 8080] [--redis-url redis://…] [--no-redis] [--postgres]
//                            [-- gateway flags…]
//
// --postgres adds the shared code index: a private PostgreSQL (Debian's) in the temp dir, the directory it runs in
// indexed into it (`mcpkit index . --store`), and every replica's built-in code search answering from it
// (`gateway --store`): one index, any replica.
// Once up it prints one JSON line on stdout ({ url, dir, nginx, redis, replicas: [{ pid, port, url }] }) for
// programs (the cluster test, the bench), and a summary on stderr. The gateways serve the servers configured
// for the directory it runs in, like `mcpkit gateway` would.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const mcpkit = join(root, 'dist', 'bin', 'main.js');

function parse(argv) {
  const options = {
    replicas: 3,
    port: 0,
    redisUrl: undefined,
    redis: true,
    postgres: false,
    gatewayArgs: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) fail(`${arg} needs a value`);
      return next;
    };
    if (arg === '--') {
      options.gatewayArgs = argv.slice(i + 1);
      break;
    } else if (arg === '--replicas') options.replicas = Number(value());
    else if (arg === '--port') options.port = Number(value());
    else if (arg === '--redis-url') options.redisUrl = value();
    else if (arg === '--no-redis') options.redis = false;
    else if (arg === '--postgres') options.postgres = true;
    else if (arg === '--help' || arg === '-h') {
      process.stderr.write(
        'usage: node scripts/cluster.mjs [--replicas N] [--port P] [--redis-url URL | --no-redis] [--postgres] [-- gateway flags]\n',
      );
      process.exit(0);
    } else fail(`unknown option ${arg}`);
  }
  if (!Number.isInteger(options.replicas) || options.replicas < 1)
    fail('--replicas must be a whole number ≥ 1');
  return options;
}

function fail(message) {
  process.stderr.write(`cluster: ${message}\n`);
  process.exit(2);
}

const which = (program) =>
  spawnSync('sh', ['-c', 'command -v "$1"', 'sh', program], { encoding: 'utf8' }).stdout.trim() ||
  ['/usr/sbin', '/usr/bin']
    .map((d) => join(d, program))
    .find((p) => spawnSync('test', ['-x', p]).status === 0);

async function freePort() {
  const server = createServer();
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

/** Polls until `check` is true; fails after `ms` naming what did not come up. */
async function until(what, check, ms = 60_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not come up within ${ms / 1000} s`);
}

const ready = (port, path) => fetch(`http://127.0.0.1:${port}${path}`).then((r) => r.status === 200);

const children = [];
/** Starts a child whose output goes to a log file in the cluster dir; it is stopped with the cluster. */
function start(name, command, args, dir, env = process.env) {
  const log = join(dir, `${name}.log`);
  writeFileSync(log, '');
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env, cwd: process.cwd() });
  child.stderr.on('data', (chunk) => writeFileSync(log, chunk, { flag: 'a' }));
  const entry = { name, child, log, exited: new Promise((done) => child.once('exit', done)) };
  children.push(entry);
  return entry;
}

function nginxConf(dir, port, replicas) {
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  const upstreams = replicas
    .map((r) => `    server 127.0.0.1:${r.port} max_fails=1 fail_timeout=5s;`)
    .join('\n');
  return `${user}worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/nginx-error.log warn;
events { worker_connections 1024; }
http {
  log_format upstream '$request_method $status $upstream_addr';
  access_log ${dir}/access.log upstream;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  # Round robin with no affinity: any replica serves any session.
  upstream mcpkit {
${upstreams}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://mcpkit;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      # SSE: no buffering, long reads.
      proxy_buffering off;
      proxy_read_timeout 1h;
      # A replica that is gone or draining: the request goes to the next one (a POST included: the replica
      # refused it before doing anything).
      proxy_next_upstream error timeout http_502 http_503 non_idempotent;
    }
  }
}
`;
}

/** Where Debian put PostgreSQL's server programs (the newest version), or undefined. */
function postgresBin() {
  const base = '/usr/lib/postgresql';
  const versions = spawnSync('ls', [base], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((v) => v && spawnSync('test', ['-x', join(base, v, 'bin', 'postgres')]).status === 0)
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], 'bin') : undefined;
}

/**
 * A private PostgreSQL in `dir` on a free port of 127.0.0.1, trusting local connections (it listens on loopback
 * only and lives as long as the cluster); run as the `postgres` user when we are root (it refuses root).
 */
async function startPostgres(bin, dir) {
  const data = join(dir, 'postgres');
  mkdirSync(data, { mode: 0o700 });
  const as = {};
  if (process.getuid?.() === 0) {
    const id = (flag) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    as.uid = id('-u');
    as.gid = id('-g');
    chownSync(dir, as.uid, as.gid);
    chownSync(data, as.uid, as.gid);
  }
  const init = spawnSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8'], {
    encoding: 'utf8',
    ...as,
  });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr.trim().split('\n').pop()}`);
  const port = await freePort();
  const args = ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir];
  const log = join(dir, 'postgres.log');
  writeFileSync(log, '');
  if (as.uid !== undefined) chownSync(log, as.uid, as.gid);
  const child = spawn(join(bin, 'postgres'), args, { stdio: ['ignore', 'ignore', 'pipe'], ...as });
  child.stderr.on('data', (chunk) => writeFileSync(log, chunk, { flag: 'a' }));
  const entry = { name: 'postgres', child, log, exited: new Promise((done) => child.once('exit', done)) };
  children.push(entry);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await until(
    `PostgreSQL (see ${log})`,
    async () => spawnSync(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)]).status === 0,
  );
  return { url, pid: child.pid };
}

async function main() {
  const options = parse(process.argv.slice(2));
  const nginx = which('nginx');
  if (!nginx) fail('nginx is not installed (apt-get install nginx)');
  const redisServer = options.redis && !options.redisUrl ? which('redis-server') : undefined;
  if (options.redis && !options.redisUrl && !redisServer)
    fail('redis-server is not installed (apt-get install redis-server), or pass --redis-url / --no-redis');
  const pgBin = options.postgres ? postgresBin() : undefined;
  if (options.postgres && !pgBin) fail('PostgreSQL is not installed (apt-get install postgresql)');
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-cluster-'));
  let stopping = false;
  const stop = async (code) => {
    if (stopping) return;
    stopping = true;
    // Replicas first (they drain), then the balancer and the store.
    for (const entry of children) if (entry.name.startsWith('replica')) entry.child.kill('SIGTERM');
    await Promise.all(children.filter((e) => e.name.startsWith('replica')).map((e) => e.exited));
    for (const entry of children)
      entry.child.kill(entry.name === 'nginx' ? 'SIGQUIT' : entry.name === 'postgres' ? 'SIGINT' : 'SIGTERM');
    await Promise.all(children.map((e) => e.exited));
    rmSync(dir, { recursive: true, force: true });
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  try {
    const keyFile = join(dir, 'session.key');
    writeFileSync(keyFile, randomBytes(32).toString('hex'), { mode: 0o600 });
    let redisUrl = options.redisUrl;
    if (redisServer) {
      const port = await freePort();
      const args = [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
      ];
      start('redis', redisServer, args, dir);
      redisUrl = `redis://127.0.0.1:${port}`;
      await until('redis-server', async () => {
        const probe = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' });
        return probe.status === 0 ? probe.stdout.trim() === 'PONG' : true; // no redis-cli: the replicas retry
      });
    }
    let storeUrl;
    let postgres;
    if (pgBin) {
      postgres = await startPostgres(pgBin, dir);
      storeUrl = postgres.url;
      const indexed = spawnSync(process.execPath, [mcpkit, 'index', process.cwd(), '--store', storeUrl], {
        encoding: 'utf8',
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      if (indexed.status !== 0) throw new Error(`indexing into PostgreSQL failed: ${indexed.stderr.trim()}`);
    }
    const replicas = [];
    for (let i = 0; i < options.replicas; i++) {
      const port = await freePort();
      const args = [mcpkit, 'gateway', '-t', 'http', '--port', String(port), '--session-key', keyFile];
      if (redisUrl) args.push('--state', redisUrl);
      if (storeUrl) args.push('--store', storeUrl);
      const entry = start(`replica${i + 1}`, process.execPath, [...args, ...options.gatewayArgs], dir);
      replicas.push({ pid: entry.child.pid, port, url: `http://127.0.0.1:${port}/mcp`, entry });
    }
    for (const r of replicas) {
      await Promise.race([
        until(`replica on port ${r.port} (see ${r.entry.log})`, () => ready(r.port, '/readyz')),
        r.entry.exited.then(() => {
          throw new Error(`a replica exited at start; its log: ${r.entry.log}`);
        }),
      ]);
    }
    const port = options.port || (await freePort());
    writeFileSync(join(dir, 'nginx.conf'), nginxConf(dir, port, replicas));
    const balancer = start(
      'nginx',
      nginx,
      ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'nginx-error.log'), '-g', 'daemon off;'],
      dir,
    );
    await Promise.race([
      until(`nginx on port ${port} (see ${dir}/nginx-error.log)`, () => ready(port, '/healthz')),
      balancer.exited.then(() => {
        throw new Error(`nginx exited at start; its log: ${balancer.log}`);
      }),
    ]);
    const url = `http://127.0.0.1:${port}/mcp`;
    const info = {
      url,
      dir,
      nginx: { pid: balancer.child.pid, port },
      redis: redisUrl ? { url: redisUrl } : null,
      postgres: postgres ?? null,
      replicas: replicas.map(({ pid, port: p, url: u }) => ({ pid, port: p, url: u })),
    };
    process.stdout.write(`${JSON.stringify(info)}\n`);
    process.stderr.write(
      `cluster up: ${url} → ${replicas.length} gateway replica${replicas.length === 1 ? '' : 's'}` +
        `${redisUrl ? ` sharing ${redisUrl}` : ''}${storeUrl ? `, code index in ${storeUrl}` : ''}; logs in ${dir}; Ctrl-C stops it\n`,
    );
    // A replica that dies is reported, not restarted: the balancer routes around it (that is the point).
    for (const r of replicas)
      void r.entry.exited.then((code) => {
        if (!stopping)
          process.stderr.write(`cluster: replica on port ${r.port} exited (${code ?? 'signal'})\n`);
      });
  } catch (error) {
    process.stderr.write(`cluster: ${error.message}\n`);
    await stop(1);
  }
}

await main();
