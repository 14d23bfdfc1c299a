import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StdioTransport } from '../../src/client/stdio-transport.js';
import { missingEngines } from '../helpers/engines.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.skipIf(missingEngines('bwrap'))('an npx server closed while its sandbox is prepared', () => {
  it('never starts npm, nor the server, and its start rejects', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mcpkit-npx-stop-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    // An npm that leaves a mark when it runs: the install must not begin once the start is given up.
    const bin = join(root, 'bin');
    await mkdir(bin);
    const mark = join(root, 'npm-ran');
    await writeFile(join(bin, 'npm'), `#!/bin/sh\ntouch '${mark}'\nexit 1\n`);
    await chmod(join(bin, 'npm'), 0o755);
    const transport = new StdioTransport({
      command: 'npx',
      args: ['-y', '@acme/never'],
      cwd: root,
      env: { PATH: `${bin}:${process.env.PATH}`, HOME: root, npm_config_cache: join(root, 'cache') },
      server: 'never',
      sandbox: true,
    });
    const started = transport.start();
    const closed = transport.close();
    await expect(started).rejects.toThrow(
      /cannot prepare the sandbox of "never": stopped before installing @acme\/never|stopped before the server was started/,
    );
    await closed;
    expect(existsSync(mark)).toBe(false);
    expect(transport.pid).toBeNull();
  });
});
