// The one rule for a test that needs a program the machine may lack (a database engine, a browser, a CLI):
// locally, its tests are skipped with a visible line saying what to install; under CI (env CI set, not
// "false"/"0") the test file fails with that line instead, since .ci/run installs every one of them.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Whether `program` is on the PATH (asked without a shell: the name is ours, but no shell is needed). */
export function onPath(program: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(join(dir, program)));
}

/** Where Debian put PostgreSQL's server programs (the newest version), or undefined. */
export function postgresBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], 'bin') : undefined;
}

/** Debian's Chromium, or the one `MCPKIT_CHROMIUM` names; playwright-core never downloads a browser. */
export const chromiumPath = () => process.env.MCPKIT_CHROMIUM ?? '/usr/bin/chromium';

/** Every engine a test may need: its name in messages, how it is found, the Debian package that brings it. */
const ENGINES = {
  postgres: { name: 'PostgreSQL', found: () => postgresBin() !== undefined, apt: 'postgresql' },
  mariadb: {
    name: 'MariaDB',
    found: () => existsSync('/usr/sbin/mariadbd') && onPath('mariadb-install-db'),
    apt: 'mariadb-server',
  },
  redis: { name: 'Redis (redis-server)', found: () => onPath('redis-server'), apt: 'redis-server' },
  nginx: { name: 'nginx', found: () => existsSync('/usr/sbin/nginx') || onPath('nginx'), apt: 'nginx' },
  chromium: { name: 'Chromium', found: () => existsSync(chromiumPath()), apt: 'chromium' },
  git: { name: 'git', found: () => onPath('git'), apt: 'git' },
  jq: { name: 'jq', found: () => onPath('jq'), apt: 'jq' },
  bwrap: { name: 'bubblewrap (bwrap)', found: () => onPath('bwrap'), apt: 'bubblewrap' },
  strace: { name: 'strace', found: () => onPath('strace'), apt: 'strace' },
} as const;

/** A program some tests need. */
export type Engine = keyof typeof ENGINES;

/** Whether this run is CI's: there a missing engine is a failure, never a skip. */
export const underCi = () => !['', '0', 'false'].includes((process.env.CI ?? '').toLowerCase());

/** Whether `engine` is installed (no message, no failure: for choosing an option, not for skipping). */
export const hasEngine = (engine: Engine): boolean => ENGINES[engine].found();

/**
 * For `describe.skipIf(missingEngines('redis', 'nginx'))`: false when every engine is installed. Otherwise,
 * locally, prints one line naming what is missing and what to install, and returns true (skip); under CI it
 * throws that line, so the test file fails.
 */
export function missingEngines(...engines: Engine[]): boolean {
  const missing = engines.filter((engine) => !hasEngine(engine));
  if (missing.length === 0) return false;
  const names = missing.map((engine) => ENGINES[engine].name).join(', ');
  const apt = missing.map((engine) => ENGINES[engine].apt).join(' ');
  const line = `${names} not installed (apt-get install ${apt})`;
  if (underCi()) throw new Error(`${line}: CI runs every engine test (.ci/run installs them)`);
  console.warn(`skipped: ${line}`);
  return true;
}
