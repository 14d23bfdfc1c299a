import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openBrowser } from '../../src/internal/browser.js';
import { eventually } from '../helpers/eventually.js';

let dir: string;
const oldPath = process.env.PATH;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-opener-'));
  // A stand-in for xdg-open that records the arguments it got, one per line.
  await writeFile(
    join(dir, 'xdg-open'),
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > "${dir}/argv"\n`,
  );
  await chmod(join(dir, 'xdg-open'), 0o755);
  process.env.PATH = `${dir}:${oldPath}`;
});

afterAll(async () => {
  process.env.PATH = oldPath;
  await rm(dir, { recursive: true, force: true });
});

it('opens the authorization URL with a plain spawn: the URL is one argument, no shell sees it', async () => {
  const url = new URL(`https://auth.example/authorize?state=$(touch ${dir}/pwned)&x=a;b|c\`d\``);
  expect(await openBrowser(url, { platform: 'linux' })).toBe(true);
  const argv = await eventually(async () => {
    const text = await readFile(join(dir, 'argv'), 'utf8').catch(() => '');
    return text.endsWith('\n') ? text : undefined;
  });
  expect(argv).toBe(`${url.href}\n`);
  await expect(readFile(join(dir, 'pwned'))).rejects.toThrow();
});

it('refuses anything but an http(s) URL', async () => {
  expect(await openBrowser(new URL('file:///etc/passwd'), { platform: 'linux' })).toBe(false);
});
