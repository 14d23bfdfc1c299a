// The engines only some users run are optional peer dependencies (sql.js, pg, mysql2, redis): a plain install
// leaves them out. The built CLI, copied where no node_modules is reachable (the bundle carries every other
// dependency), must name the package to add in one line when a feature needs it — not a stack trace.
import { execFile } from 'node:child_process';
import { cp, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { CLI, createWorkspace, type Workspace } from '../helpers/cli.js';

const run = promisify(execFile);
let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

it('a SQLite --db without sql.js installed says which package to add, in one line', async () => {
  const bin = join(ws.root, 'package', 'dist', 'bin');
  await cp(dirname(CLI), bin, { recursive: true });
  await cp(join(dirname(CLI), '..', '..', 'package.json'), join(ws.root, 'package', 'package.json'));
  // A header is all that is read before the engine is loaded.
  const database = Buffer.alloc(1024);
  database.write('SQLite format 3\0');
  await writeFile(join(ws.project, 'app.sqlite'), database);

  const { stdout, stderr } = await run(
    process.execPath,
    [join(bin, 'main.js'), 'query', '.', 'customer email', '--db', './app.sqlite'],
    { cwd: ws.project, env: ws.env },
  );
  expect(stderr).toBe(
    'mcpkit query: app: SQLite schemas (--db sqlite:…) needs the package sql.js, which is not installed: add it ' +
      'where mcpkit is (npm install -g sql.js beside a global mcpkit, npm install sql.js in a project); ' +
      'searching code without it\n',
  );
  expect(stdout).toBe('No results found.\n');
});
