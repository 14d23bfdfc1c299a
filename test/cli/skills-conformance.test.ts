import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, runConformance, tally } from '../helpers/conformance.js';

// The conformance suite's SEP-2640 client scenarios with mcpkit as the skills host (`skills-host.mjs`:
// `mcpkit skills`, or `mcpkit skill … --install`): listing reads no file; a SKILL.md whose digest, size or
// frontmatter differs from the listed entry is refused, and nothing after it is read.
describe('conformance 0.2 alpha, SEP-2640 client scenarios: mcpkit as the skills host', () => {
  const host = `${process.execPath} ${join(root, 'test/cli/skills-host.mjs')}`;
  it.each([
    'sep-2640-client-no-prefetch',
    'sep-2640-client-verify-digest',
    'sep-2640-client-verify-size',
    'sep-2640-client-verify-frontmatter',
  ])(
    '%s passes',
    async (scenario) => {
      // The suite files the extension's scenarios off its spec timeline: --force runs them.
      const run = await runConformance(
        ['client', '--command', host, '--scenario', scenario, '--force'],
        'next',
      );
      expect(tally(run.checks)).toEqual({ [scenario]: '1/1' });
    },
    60_000,
  );
});
