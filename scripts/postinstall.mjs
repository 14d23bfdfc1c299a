// The project's postinstall: installs the Node 22 that the conformance tests need (test/node22/, see its
// package.json) — only for a developer's `npm ci` / `npm install` in this checkout. A package installed from the
// tarball has no test/ folder, and a copy of this folder that npm installs elsewhere (npx, a dependency) is not the
// project npm was run in: both skip it, so no user install ever downloads Node 22. Without network (or with
// npm_config_offline) and Node 22 not in npm's cache, the checkout's install still succeeds with one line saying so:
// everything but the conformance tests runs without it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const here = resolve(import.meta.dirname, '..');
const ranIn = process.env.INIT_CWD ? resolve(process.env.INIT_CWD) : undefined;
if (ranIn === here && existsSync(resolve(here, 'test/node22/package-lock.json'))) {
  const execPath = process.env.npm_execpath;
  const [command, prefix] = execPath?.endsWith('.js') ? [process.execPath, [execPath]] : ['npm', []];
  const args = ['ci', '--prefix', 'test/node22', '--no-audit', '--no-fund', '--loglevel=error'];
  const run = spawnSync(command, [...prefix, ...args], { cwd: here, stdio: 'inherit' });
  if (run.status !== 0)
    process.stderr.write(
      `mcpkit postinstall: Node 22 for the conformance tests was not installed (npm ci --prefix test/node22 failed${process.env.npm_config_offline === 'true' ? ', offline' : ''}); everything else works — run that command with network to add it\n`,
    );
}
