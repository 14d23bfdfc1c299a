import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { missingEngines } from './engines.js';
import { eventually } from './eventually.js';

// The suite's own rules: a missing engine skips with a line locally and fails under CI; a wait that times out
// says what it waited for.
describe('missingEngines: one rule for a program the machine lacks', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  async function withEmptyPath(run: () => void): Promise<void> {
    const empty = await mkdtemp(join(tmpdir(), 'mcpkit-no-programs-'));
    vi.stubEnv('PATH', empty);
    try {
      run();
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  }

  it('skips locally, with one line naming what to install', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    vi.stubEnv('CI', '');
    await withEmptyPath(() => expect(missingEngines('jq', 'git')).toBe(true));
    expect(warn.mock.calls).toEqual([['skipped: jq, git not installed (apt-get install jq git)']]);
  });

  it('fails under CI with that line (CI=true), and skips when CI=false', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    vi.stubEnv('CI', 'true');
    await withEmptyPath(() =>
      expect(() => missingEngines('jq')).toThrow(
        'jq not installed (apt-get install jq): CI runs every engine test (.ci/run installs them)',
      ),
    );
    vi.stubEnv('CI', 'false');
    await withEmptyPath(() => expect(missingEngines('jq')).toBe(true));
  });

  it('is false, and silent, when the program is there (git: this checkout needs it)', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    vi.stubEnv('CI', 'true');
    expect(missingEngines('git')).toBe(false);
    expect(warn).not.toHaveBeenCalled();
  });
});

describe('eventually: a wait that fails says what it waited for', () => {
  it('names what was awaited and the check', async () => {
    await expect(eventually('the upstream to restart', () => undefined, 50)).rejects.toThrow(
      /^waited 50 ms for the upstream to restart, in vain \(check: \(\) => undefined\)$/,
    );
  });

  it('shows the check itself when no name was given', async () => {
    const ready = false;
    await expect(eventually(() => (ready ? true : undefined), 50)).rejects.toThrow(
      /^waited 50 ms for this check to return a value, in vain: \(\) => ready \? true : undefined$/,
    );
  });

  it('returns the first value that is not undefined', async () => {
    let calls = 0;
    expect(await eventually('the third call', () => (++calls === 3 ? 'third' : undefined))).toBe('third');
  });
});
