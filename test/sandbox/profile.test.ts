import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/sandbox/index.js';

/** What an entry's `sandbox` means on disk: the secrets hidden, what lifts them, what is writable. */
let root: string;
afterEach(() => rm(root, { recursive: true, force: true }));

describe('a sandbox profile', () => {
  it('hides the secrets that exist; read names a place to lift, write lifts only what it points into', async () => {
    root = await mkdtemp(join(tmpdir(), 'mcpkit-profile-'));
    const home = join(root, 'home');
    const work = join(root, 'work');
    for (const dir of ['.ssh', '.aws', '.gnupg', '.config/mcpkit'])
      await mkdir(join(home, dir), { recursive: true });
    await mkdir(work);
    await writeFile(join(work, '.env'), 'TOKEN=x');
    await writeFile(join(work, '.env.local'), 'TOKEN=y');
    await writeFile(join(work, 'environment.ts'), '');
    const context = { cwd: work, env: { HOME: home, XDG_RUNTIME_DIR: join(root, 'no-run') } };
    const inHome = (path: string) => join(home, path);

    // The machine's own sockets (docker's, an ssh-agent's in /tmp) are denied too where they exist: not compared.
    const mine = (paths: string[]) => paths.filter((path) => path.startsWith(root));
    const defaults = resolveProfile(true, context, join(root, 'tmp'));
    expect({ ...defaults, deny: mine(defaults.deny) }).toEqual({
      write: [work, join(root, 'tmp')],
      deny: [
        inHome('.ssh'),
        inHome('.aws'),
        inHome('.gnupg'),
        inHome('.config/mcpkit'),
        join(work, '.env'),
        join(work, '.env.local'),
      ],
      network: [],
    });

    const granted = resolveProfile(
      {
        filesystem: { read: ['~/.gnupg'], write: ['~', '~/.aws/cli/cache'], deny: ['secrets'] },
        network: { allow: ['x.com'] },
      },
      context,
      join(root, 'tmp'),
    );
    // `~` writable is no read of ~/.ssh; a write into ~/.aws lifts it; a deny that does not exist is no mount.
    expect(mine(granted.deny)).toEqual([
      inHome('.ssh'),
      inHome('.config/mcpkit'),
      join(work, '.env'),
      join(work, '.env.local'),
    ]);
    expect(granted.write).toEqual([work, join(root, 'tmp'), home, inHome('.aws/cli/cache')]);
    expect(granted.network).toEqual(['x.com']);
  });
});
