import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { skillFilePath } from '../../src/client/index.js';
import { runInProcess } from '../config/run-in-process.js';
import { skillsServer } from '../helpers/extension-servers.js';
import { test as it } from '../helpers/fixtures.js';
import { upstream, writeProjectConfig } from '../helpers/gateway.js';

// `mcpkit skills` and `mcpkit skill` against the skills fixture (the SDK v2's skills extension) directly.

describe('mcpkit skills / skill against a server', () => {
  it('lists the skills of every configured server, one block each, and as JSON', async ({ workspace }) => {
    await writeProjectConfig(workspace, { alpha: skillsServer('alpha'), beta: skillsServer('beta') });
    const r = await runInProcess(workspace, ['skills']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').map((l) => l.trimEnd())).toEqual([
      'alpha (1 skill)',
      '  pdf  skill://pdf/SKILL.md  Fills PDF forms (alpha).',
      'beta (2 skills)',
      '  pdf     skill://pdf/SKILL.md     Reads PDF text (beta).',
      '  review  skill://review/SKILL.md  Reviews a change.',
      '',
    ]);
    const json = JSON.parse((await runInProcess(workspace, ['skills', 'beta', '--json'])).stdout);
    expect(json).toEqual([
      expect.objectContaining({
        server: 'beta',
        status: 'ready',
        supported: true,
        skills: expect.any(Array),
      }),
    ]);
    expect(json[0].skills[1].resources[0]).toMatchObject({ uri: 'skill://review/SKILL.md', size: 81 });
  }, 30_000);

  it('says so for a server without the extension', async ({ workspace }) => {
    await writeProjectConfig(workspace, { plain: upstream('plain') });
    const r = await runInProcess(workspace, ['skills', 'plain']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'plain: serves no skills (it does not declare the io.modelcontextprotocol/skills extension)\n',
    );
    const one = await runInProcess(workspace, ['skill', 'plain', 'skill://pdf/SKILL.md']);
    expect([one.code, one.stdout, one.stderr]).toEqual([
      1,
      '',
      'mcpkit: server "plain" serves no skills (it does not declare the io.modelcontextprotocol/skills extension)\n',
    ]);
  }, 30_000);

  it('prints SKILL.md and then each file, every digest checked', async ({ workspace }) => {
    await writeProjectConfig(workspace, { alpha: skillsServer('alpha') });
    const r = await runInProcess(workspace, ['skill', 'alpha', 'skill://pdf/SKILL.md']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        '==> SKILL.md (96 bytes, digest verified)',
        '---',
        'name: pdf',
        'description: Fills PDF forms (alpha).',
        '---',
        '',
        '# PDF',
        '',
        'Read references/GUIDE.md first.',
        '',
        '==> references/GUIDE.md (39 bytes, digest verified)',
        '# Guide',
        '',
        'Fields are named in the form.',
        '',
        '==> scripts/fill.py (16 bytes, digest verified)',
        'print("filled")',
        '',
      ].join('\n'),
    );
    const json = JSON.parse(
      (await runInProcess(workspace, ['skill', 'alpha', 'skill://pdf/SKILL.md', '--json'])).stdout,
    );
    expect(json.skill.uri).toBe('skill://pdf/SKILL.md');
    expect(json.files[1]).toEqual({
      path: 'references/GUIDE.md',
      uri: 'skill://pdf/references/GUIDE.md',
      mimeType: 'text/markdown',
      size: 39,
      verified: true,
      text: '# Guide\n\nFields are named in the form.\n',
    });
    const unknown = await runInProcess(workspace, ['skill', 'alpha', 'skill://nope/SKILL.md']);
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      'mcpkit: server "alpha" refused skill skill://nope/SKILL.md: No skill is served at skill://nope/SKILL.md (-32602)\n',
    ]);
  }, 30_000);

  it('--install writes <dir>/<name>/ as Claude Code reads skills, and refuses a second time without --force', async ({
    workspace,
  }) => {
    await writeProjectConfig(workspace, { alpha: skillsServer('alpha') });
    const dir = join(workspace.project, '.claude', 'skills');
    const args = ['skill', 'alpha', 'skill://pdf/SKILL.md', '--install', '.claude/skills'];
    const r = await runInProcess(workspace, args);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      `installed skill "pdf" in ${join(dir, 'pdf')} (3 files, 151 bytes, digests verified)\n`,
    );
    expect(await readFile(join(dir, 'pdf', 'references', 'GUIDE.md'), 'utf8')).toBe(
      '# Guide\n\nFields are named in the form.\n',
    );
    expect(await readFile(join(dir, 'pdf', 'SKILL.md'), 'utf8')).toContain('name: pdf\n');
    const again = await runInProcess(workspace, args);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(
      `mcpkit: ${join(dir, 'pdf')} exists already; remove it or pass --force to replace it\n`,
    );
    expect((await runInProcess(workspace, [...args, '--force'])).code).toBe(0);
    expect(await readdir(dir)).toEqual(['pdf']);
  }, 30_000);

  it('refuses a skill whose file does not match its digest, and writes nothing', async ({ workspace }) => {
    await writeProjectConfig(workspace, { alpha: skillsServer('alpha', { SKILLS_TAMPER: '1' }) });
    const dir = join(workspace.project, 'skills');
    await mkdir(dir);
    const r = await runInProcess(workspace, [
      'skill',
      'alpha',
      'skill://pdf/SKILL.md',
      '--install',
      'skills',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(r.stderr).toMatch(
      /^mcpkit: skill "skill:\/\/pdf\/SKILL\.md" failed verification \(digest\): skill:\/\/pdf\/references\/GUIDE\.md has digest sha256:[0-9a-f]{64}; the skill entry lists sha256:67ecfbf2[0-9a-f]{56}; nothing was written\n$/u,
    );
    expect(await readdir(dir)).toEqual([]);
  }, 30_000);
});

describe('skillFilePath: where a listed file goes inside the skill folder', () => {
  const skill = {
    uri: 'skill://acme/pdf/SKILL.md',
    frontmatter: { name: 'pdf', description: 'x' },
    resources: 'dynamic' as const,
  };
  it('keeps nested paths, decoded', () => {
    expect(skillFilePath(skill, 'skill://acme/pdf/references/Q%26A.md')).toBe('references/Q&A.md');
  });
  it.each([
    'skill://acme/pdf/../../escape.md',
    'skill://acme/pdf/%2e%2e/x.md',
    'skill://acme/pdf/a%2F..%2F..%2Fescape.md',
    'skill://acme/pdf/a%5C..%5Cescape.md',
    'skill://acme/other/SKILL.md',
  ])('refuses %s in one line', (uri) => {
    expect(() => skillFilePath(skill, uri)).toThrow(
      /^skill "skill:\/\/acme\/pdf\/SKILL.md" lists a file outside its folder .*; nothing was written$/u,
    );
  });
});
