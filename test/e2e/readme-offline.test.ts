// The README's main job runs offline right after `npm ci`: its commands, as printed, in a copy of the checkout's
// layout (dist/ and node_modules/ linked, so nothing is written into this checkout), with npm offline and an empty
// npm cache. It must answer without installing anything: npx in this folder used to install the checkout again
// (a build and the postinstall's Node 22 download) and, offline, failed saying nothing.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createWorkspace, type Workspace } from '../helpers/cli.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
let ws: Workspace;
beforeEach(async () => {
  ws = await createWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

/** The shell block right after the README's "Main job" paragraph. */
async function mainJob(): Promise<string> {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const from = readme.indexOf('Main job on a fresh machine');
  const block = /```sh\n([\s\S]*?)```/u.exec(readme.slice(from));
  if (from < 0 || !block?.[1])
    throw new Error('README.md: no ```sh block after "Main job on a fresh machine"');
  return block[1];
}

it('the README main job answers offline with an empty npm cache, installing nothing', async () => {
  const checkout = join(ws.root, 'checkout');
  const cache = join(ws.root, 'npm-cache');
  await mkdir(checkout);
  await mkdir(cache);
  await symlink(join(root, 'dist'), join(checkout, 'dist'));
  await symlink(join(root, 'node_modules'), join(checkout, 'node_modules'));
  await copyFile(join(root, 'package.json'), join(checkout, 'package.json'));

  // Our own README's text, run as a user pastes it.
  const { stdout } = await run('/bin/sh', ['-e', '-c', await mainJob()], {
    cwd: checkout,
    env: {
      ...ws.env,
      npm_config_offline: 'true',
      npm_config_cache: cache,
      npm_config_update_notifier: 'false',
    },
    timeout: 60_000,
  });
  expect(stdout).toContain(`Added stdio server "memory" in project scope (${join(checkout, '.mcp.json')})\n`);
  expect(stdout).toContain('node dist/bin/main.js gateway (9 tools)\n');
  expect(stdout).toMatch(/^ {2}memory__read_graph +Read the entire knowledge graph$/mu);
  // Nothing went through npm: its cache is as empty as it started.
  expect(await readdir(cache)).toEqual([]);
}, 90_000);
