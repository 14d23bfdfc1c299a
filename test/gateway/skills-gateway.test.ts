import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { describe, expect } from 'vitest';
import { runInProcess } from '../config/run-in-process.js';
import { CLI } from '../helpers/cli.js';
import { skillsServer } from '../helpers/extension-servers.js';
import { test as it } from '../helpers/fixtures.js';
import { connectGateway, writeProjectConfig } from '../helpers/gateway.js';

// Skills from two upstreams — `alpha` on the 2026-07-28 era (cache hint: 5 s, public), `beta` on the 2025
// handshake only — through the built `mcpkit gateway`: the SDK v2 client at 2026-07-28, and `mcpkit skills`.

describe('skills through `mcpkit gateway`', () => {
  it("a 2026-07-28 SDK client lists, gets with the upstream's cache hints, reads and verifies", async ({
    workspace,
  }) => {
    await writeProjectConfig(workspace, {
      alpha: skillsServer('alpha', { SKILLS_TTL: '5000' }),
      beta: skillsServer('beta'),
    });
    const gateway = await connectGateway(workspace, [], { modern: true });
    try {
      expect(gateway.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const skills = new SkillsClient(gateway.client as Client);
      const listed = await skills.list();
      expect(listed.skills.map((s) => s.uri)).toEqual([
        'skill://alpha/pdf/SKILL.md',
        'skill://beta/pdf/SKILL.md',
        'skill://beta/review/SKILL.md',
      ]);
      // The listing mixes a 5 s public hint with a 2025 upstream's none: it may be kept for neither.
      expect([listed.ttlMs, listed.cacheScope]).toEqual([0, 'private']);
      const alpha = await skills.get('skill://alpha/pdf/SKILL.md');
      expect([alpha.ttlMs, alpha.cacheScope]).toEqual([5000, 'public']);
      const script = await skills.read(alpha.skill, 'scripts/fill.py');
      expect([script.uri, script.verified, script.text]).toEqual([
        'skill://alpha/pdf/scripts/fill.py',
        true,
        'print("filled")\n',
      ]);
      const review = await skills.get('skill://beta/review/SKILL.md');
      expect((await skills.read(review.skill)).frontmatter).toEqual({
        name: 'review',
        description: 'Reviews a change.',
      });
    } finally {
      await gateway.close();
    }
  }, 60_000);

  it('`mcpkit skills` and `mcpkit skill --install` through the gateway, a configured server', async ({
    workspace,
  }) => {
    // The gateway's own project (its upstreams) beside the one the CLI runs in (the gateway as a server).
    const upstreams = join(workspace.root, 'gateway-project');
    await mkdir(upstreams);
    await writeFile(
      join(upstreams, '.mcp.json'),
      JSON.stringify({ mcpServers: { alpha: skillsServer('alpha'), beta: skillsServer('beta') } }),
    );
    await writeProjectConfig(workspace, {
      gw: { command: process.execPath, args: [CLI, 'gateway'], cwd: upstreams },
    });
    const listed = await runInProcess(workspace, ['skills', 'gw']);
    expect(listed.stderr).toBe('');
    expect(listed.stdout.split('\n')).toEqual([
      'gw (3 skills)',
      '  pdf     skill://alpha/pdf/SKILL.md    Fills PDF forms (alpha).',
      '  pdf     skill://beta/pdf/SKILL.md     Reads PDF text (beta).',
      '  review  skill://beta/review/SKILL.md  Reviews a change.',
      '',
    ]);
    const installed = await runInProcess(workspace, [
      'skill',
      'gw',
      'skill://beta/review/SKILL.md',
      '--install',
      '.claude/skills',
    ]);
    expect(installed.stderr).toBe('');
    const folder = join(workspace.project, '.claude', 'skills', 'review');
    expect(installed.stdout).toBe(
      `installed skill "review" in ${folder} (1 file, 81 bytes, digests verified)\n`,
    );
    expect(await readFile(join(folder, 'SKILL.md'), 'utf8')).toContain('description: Reviews a change.\n');
  }, 60_000);
});
