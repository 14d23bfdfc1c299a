// Private PostgreSQL and MariaDB servers for tests: a temp data dir, a free port on 127.0.0.1, run as the
// engine's own system user when we are root (postgres refuses root), ready when the server says so on stderr,
// stopped and deleted by close(). Found from Debian's packages (.ci/run installs them).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresBin } from './engines.js';
import { freePort } from './ports.js';

export { postgresBin };

/** A running database server: URLs for the admin and for an application user with a password. */
export interface DbServer {
  port: number;
  /** Superuser URL (may write: to load fixtures). */
  adminUrl: (database: string) => string;
  /** The application user's URL, with its password. */
  appUrl: (database: string) => string;
  password: string;
  close(): Promise<void>;
}

const PASSWORD = 'S3cret-pw-do-not-log';
const APP_USER = 'app';

/** The uid/gid to run an engine as: its system user when we are root, else ourselves. */
function runAs(user: string): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, user], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

function run(command: string, args: string[], as: { uid: number; gid: number } | undefined): void {
  const result = spawnSync(command, args, { encoding: 'utf8', ...(as ?? {}) });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr || result.stdout}`);
}

/** Starts `command` and resolves once a stderr line matches `ready`; rejects if the process ends first. */
function startUntil(
  command: string,
  args: string[],
  as: { uid: number; gid: number } | undefined,
  ready: RegExp,
) {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], ...(as ?? {}) });
  // A test or bench that dies without close() (a crash, a closed pipe) must not leave the server running.
  const orphaned = () => child.kill('SIGKILL');
  process.once('exit', orphaned);
  child.once('exit', () => process.off('exit', orphaned));
  let log = '';
  const started = new Promise<ChildProcess>((resolve, reject) => {
    child.stderr?.on('data', (data: Buffer) => {
      log += data.toString();
      if (ready.test(log)) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`${command} exited (${code}) before it was ready:\n${log}`)));
  });
  return { child, started };
}

/** Starts an engine on a free port, again on another when the port was taken meanwhile (5 tries). */
async function onFreePort(
  engine: string,
  inUse: RegExp,
  start: (port: number) => Promise<ChildProcess>,
): Promise<{ port: number; child: ChildProcess }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const child = await start(port).catch((error: Error) => {
      if (!inUse.test(error.message)) throw error;
      return undefined;
    });
    if (child) return { port, child };
  }
  throw new Error(`no free port for ${engine} after 5 tries`);
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((done) => child.once('exit', done));
  child.kill(signal);
  await gone;
}

/** Deletes `dir` if the process exits without having deleted it (a crash: its server is killed by startUntil's hook). */
export function removeOnExit(dir: string): void {
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
}

async function ownedTempDir(prefix: string, as: { uid: number; gid: number } | undefined): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  removeOnExit(dir);
  if (as) await chown(dir, as.uid, as.gid);
  await chmod(dir, 0o700);
  return dir;
}

/** A private PostgreSQL: superuser `postgres`, application user `app` (password), scram over TCP. */
export async function startPostgres(): Promise<DbServer> {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  const as = runAs('postgres');
  const dir = await ownedTempDir('mcpkit-pg-', as);
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pw');
  await writeFile(pwfile, `${PASSWORD}\n`);
  if (as) await chown(pwfile, as.uid, as.gid);
  run(
    join(bin, 'initdb'),
    [
      '-D',
      data,
      '-U',
      'postgres',
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      `--pwfile=${pwfile}`,
      '-E',
      'UTF8',
      '--no-sync',
    ],
    as,
  );
  const { port, child } = await onFreePort(
    'PostgreSQL',
    /already in use|could not bind/i,
    (port) =>
      startUntil(
        join(bin, 'postgres'),
        [
          '-D',
          data,
          '-p',
          String(port),
          '-k',
          dir,
          '-c',
          'listen_addresses=127.0.0.1',
          '-c',
          'fsync=off',
          '-c',
          'full_page_writes=off',
        ],
        as,
        /ready to accept connections/,
      ).started,
  );
  const admin = (database: string) => `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${database}`;
  const running = child;
  try {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: admin('postgres') });
    await client.connect();
    await client.query(`CREATE ROLE ${APP_USER} LOGIN PASSWORD '${PASSWORD}'`);
    await client.end();
  } catch (error) {
    await stop(running, 'SIGINT');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    password: PASSWORD,
    adminUrl: admin,
    appUrl: (database) => `postgres://${APP_USER}:${PASSWORD}@127.0.0.1:${port}/${database}`,
    close: async () => {
      await stop(running, 'SIGINT');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A private MariaDB: `root` (password) and application user `app` (password), on 127.0.0.1. */
export async function startMariadb(): Promise<DbServer> {
  const as = runAs('mysql');
  const dir = await ownedTempDir('mcpkit-maria-', as);
  const data = join(dir, 'data');
  const user = as ? ['--user=mysql'] : [];
  run(
    'mariadb-install-db',
    [
      '--no-defaults',
      `--datadir=${data}`,
      ...user,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
    ],
    undefined,
  );
  const { port, child } = await onFreePort(
    'MariaDB',
    /in use|Can't start server/i,
    (port) =>
      startUntil(
        '/usr/sbin/mariadbd',
        [
          '--no-defaults',
          `--datadir=${data}`,
          `--port=${port}`,
          '--bind-address=127.0.0.1',
          `--socket=${join(dir, 'sock')}`,
          `--pid-file=${join(dir, 'pid')}`,
          ...user,
          '--skip-log-bin',
          '--innodb-buffer-pool-size=16M',
          '--skip-name-resolve',
        ],
        undefined,
        /ready for connections/,
      ).started,
  );
  const running = child;
  try {
    await setUpMariadbUsers(join(dir, 'sock'));
  } catch (error) {
    await stop(running, 'SIGTERM');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    password: PASSWORD,
    adminUrl: (database) => `mysql://root:${PASSWORD}@127.0.0.1:${port}/${database}`,
    appUrl: (database) => `mysql://${APP_USER}:${PASSWORD}@127.0.0.1:${port}/${database}`,
    close: async () => {
      await stop(running, 'SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function setUpMariadbUsers(socketPath: string): Promise<void> {
  const mysql = await import('mysql2/promise');
  const root = await mysql.createConnection({ socketPath, user: 'root' });
  await root.query(`CREATE USER '${APP_USER}'@'%' IDENTIFIED BY '${PASSWORD}'`);
  await root.query(`CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'`);
  await root.query(`ALTER USER 'root'@'127.0.0.1' IDENTIFIED BY '${PASSWORD}'`);
  await root.query(`GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION`);
  await root.query(`GRANT SELECT, SHOW VIEW ON *.* TO '${APP_USER}'@'%'`);
  await root.end();
}
