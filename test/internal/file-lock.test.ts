import { mkdir, mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withFileLock } from '../../src/internal/file-lock.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpkit-lock-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the token store lock', () => {
  it('hooks no signal when loaded (proper-lockfile’s signal-exit made a starting gateway ignore SIGTERM)', async () => {
    const before = ['SIGINT', 'SIGTERM', 'SIGHUP'].map((s) => process.listenerCount(s));
    await import('../../src/client/auth/token-store.js');
    expect(['SIGINT', 'SIGTERM', 'SIGHUP'].map((s) => process.listenerCount(s))).toEqual(before);
  });

  it('makes two holders take turns, and removes the lock after each', async () => {
    const target = join(dir, 'oauth.json');
    const events: string[] = [];
    let firstHolds: () => void = () => undefined;
    const holding = new Promise<void>((resolve) => {
      firstHolds = resolve;
    });
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const options = { staleMs: 15_000, timeoutMs: 20_000 };
    const first = withFileLock(target, options, async () => {
      events.push('first in');
      firstHolds();
      await released;
      events.push('first out');
    });
    await holding;
    const second = withFileLock(target, options, async () => {
      events.push('second in');
    });
    // The second waits on the first's lock directory; it gets in only once the first is out.
    expect((await stat(`${target}.lock`)).isDirectory()).toBe(true);
    release();
    await Promise.all([first, second]);
    expect(events).toEqual(['first in', 'first out', 'second in']);
    await expect(stat(`${target}.lock`)).rejects.toThrow(/ENOENT/);
  });

  it('takes over a lock its holder left when it died (older than the stale time)', async () => {
    const target = join(dir, 'oauth.json');
    await mkdir(`${target}.lock`);
    const long = new Date(Date.now() - 60_000);
    await utimes(`${target}.lock`, long, long);
    expect(await withFileLock(target, { staleMs: 15_000, timeoutMs: 5_000 }, async () => 'mine')).toBe(
      'mine',
    );
  });

  it('gives up on a live holder after the timeout, naming the lock', async () => {
    const target = join(dir, 'oauth.json');
    await mkdir(`${target}.lock`);
    await expect(
      withFileLock(target, { staleMs: 15_000, timeoutMs: 200 }, async () => 'never'),
    ).rejects.toThrow(`${target}.lock is held by another process`);
  });
});
