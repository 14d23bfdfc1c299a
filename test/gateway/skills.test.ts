import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient, SkillVerificationError } from '@modelcontextprotocol/client/ext/skills';
import { describe, expect, it, onTestFinished } from 'vitest';
import * as z from 'zod';
import { installSkill, Runtime, type RuntimeServerConfig } from '../../src/client/index.js';
import type { GatewayOptions } from '../../src/gateway/index.js';
import { createHttpHandler } from '../../src/serve/index.js';
import { skillsUpstream } from '../helpers/extension-servers.js';
import { clientOf, eventually, gatewayOf, startGateway, textOf } from '../helpers/gateway.js';

// Skills (SEP-2640) through the gateway: two upstreams built on the SDK v2's skills extension, one on each
// era, both serving `skill://pdf/SKILL.md`. The SDK v2's own SkillsClient reads them through the gateway.

async function skillsThrough(options: Partial<GatewayOptions> = {}, env: Record<string, string> = {}) {
  const { gateway } = await gatewayOf([skillsUpstream('alpha', env), skillsUpstream('beta')], options);
  const connected = await clientOf(gateway);
  return { gateway, connected, skills: new SkillsClient(connected.client) };
}

describe('skills through the gateway', () => {
  it("declares the extension and lists both upstreams' skills under namespaced URIs", async () => {
    const { connected, skills } = await skillsThrough();
    expect(connected.client.getServerCapabilities()?.extensions).toMatchObject({
      'io.modelcontextprotocol/skills': { directoryRead: true },
    });
    const { skills: listed, invalid } = await skills.list();
    expect(invalid).toEqual([]);
    expect(listed.map((s) => [s.uri, s.frontmatter.description])).toEqual([
      ['skill://alpha/pdf/SKILL.md', 'Fills PDF forms (alpha).'],
      ['skill://beta/pdf/SKILL.md', 'Reads PDF text (beta).'],
      ['skill://beta/review/SKILL.md', 'Reviews a change.'],
    ]);
    const alphaPdf = listed[0];
    if (!alphaPdf) throw new Error('no skill');
    expect(alphaPdf.resources).toHaveLength(3);
    const guide = await skills.read(alphaPdf, 'references/GUIDE.md');
    expect(guide).toMatchObject({ uri: 'skill://alpha/pdf/references/GUIDE.md', verified: true });
    expect(guide.text).toBe('# Guide\n\nFields are named in the form.\n');
    const manifest = await skills.read(listed[1] as (typeof listed)[number]);
    expect(manifest.body).toContain('# PDF reading');
    const got = await skills.get('skill://beta/review/SKILL.md');
    expect(got.skill.resources).toEqual([expect.objectContaining({ uri: 'skill://beta/review/SKILL.md' })]);
    const directory = await skills.readDirectory('skill://alpha/pdf');
    expect(directory.resources.map((r) => r.uri)).toEqual([
      'skill://alpha/pdf/SKILL.md',
      'skill://alpha/pdf/references',
      'skill://alpha/pdf/scripts',
    ]);
  }, 30_000);

  it.each([
    ['alpha', '2026-07-28'],
    ['beta', '2025'],
  ])(
    'passes a changed listing on: a skill added on %s (%s) is listed after resources/list_changed',
    async (server) => {
      const { connected, skills } = await skillsThrough();
      expect((await skills.list()).skills).toHaveLength(3);
      const added = await connected.client.callTool({ name: `${server}__add-skill`, arguments: {} });
      expect(textOf(added)).toContain('"listChanged":true');
      await eventually(
        'resources/list_changed from the gateway',
        () =>
          connected.notifications.some((n) => n.method === 'notifications/resources/list_changed') ||
          undefined,
      );
      const uris = await eventually('the added skill listed', async () => {
        const listed = (await skills.list()).skills.map((s) => s.uri);
        return listed.includes(`skill://${server}/extra/SKILL.md`) ? listed : undefined;
      });
      expect(uris).toHaveLength(4);
    },
    30_000,
  );

  it('serves a profile only the skills of its servers', async () => {
    const { skills } = await skillsThrough({ profiles: { b: { servers: ['beta'] } }, profile: 'b' });
    expect((await skills.list()).skills.map((s) => s.uri)).toEqual([
      'skill://beta/pdf/SKILL.md',
      'skill://beta/review/SKILL.md',
    ]);
    await expect(skills.get('skill://alpha/pdf/SKILL.md')).rejects.toThrow(
      'No skill is served at skill://alpha/pdf/SKILL.md',
    );
  }, 30_000);

  it("hands the client the upstream's bytes: a file changed after its digest was published fails verification", async () => {
    const { skills } = await skillsThrough({}, { SKILLS_TAMPER: '1' });
    const [pdf] = (await skills.list()).skills;
    if (!pdf) throw new Error('no skill');
    expect(pdf.uri).toBe('skill://alpha/pdf/SKILL.md');
    const failed = await skills.read(pdf, 'references/GUIDE.md').catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(SkillVerificationError);
    expect((failed as SkillVerificationError).reason).toBe('digest');
  }, 30_000);

  it('serves a 2026-07-28 client over HTTP (stateless): listing with hints, skills/get, a verified read', async () => {
    const { gateway } = await gatewayOf([skillsUpstream('alpha', { SKILLS_TTL: '60000' })]);
    const http = createHttpHandler(gateway.factory, { intercept: gateway.intercept() });
    onTestFinished(() => http.close());
    const client = new Client({ name: 'modern', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
        fetch: (url, init) => http.request(new Request(url, init)),
      }),
    );
    onTestFinished(() => client.close());
    expect(client.getProtocolEra()).toBe('modern');
    const skills = new SkillsClient(client);
    const listed = await skills.list();
    expect([listed.skills.map((s) => s.uri), listed.ttlMs, listed.cacheScope]).toEqual([
      ['skill://alpha/pdf/SKILL.md'],
      60_000,
      'public',
    ]);
    const { skill } = await skills.get('skill://alpha/pdf/SKILL.md');
    expect((await skills.read(skill, 'references/GUIDE.md')).verified).toBe(true);
    const file = await client.readResource({ uri: 'skill://alpha/pdf/references/GUIDE.md' });
    expect([file.ttlMs, file.cacheScope]).toEqual([60_000, 'public']);
    expect((await skills.readDirectory('skill://alpha/pdf/references')).resources.map((r) => r.uri)).toEqual([
      'skill://alpha/pdf/references/GUIDE.md',
    ]);
  }, 30_000);

  it("takes an entry's own prefix for its URIs; with --prefix none keeps them, and two servers' same URI is a clash", async () => {
    const alpha = skillsUpstream('alpha');
    const { skills } = await skillsThrough2([{ ...alpha, entry: { ...alpha.entry, prefix: 'a1' } }]);
    expect((await skills.list()).skills.map((s) => s.uri)).toEqual(['skill://a1/pdf/SKILL.md']);
    const plain = await skillsThrough2([skillsUpstream('beta')], { prefix: 'none' });
    const review = await plain.skills.get('skill://review/SKILL.md');
    expect((await plain.skills.read(review.skill)).verified).toBe(true);
    await expect(
      startGateway([skillsUpstream('alpha'), skillsUpstream('beta')], { prefix: 'none' }),
    ).rejects.toThrow('skill "skill://pdf/SKILL.md" of beta clashes with alpha\'s');
  }, 30_000);

  it('the Runtime lists, gets and installs a skill through the gateway (its files verified on the way)', async () => {
    const { gateway } = await gatewayOf([skillsUpstream('alpha'), skillsUpstream('beta')]);
    const runtime = await Runtime.create({
      servers: [
        {
          name: 'gw',
          entry: { command: 'in-process' },
          transport: () => {
            const [client, server] = InMemoryTransport.createLinkedPair();
            void Promise.resolve(gateway.factory({ era: 'legacy' })).then((s) => s.connect(server));
            return client;
          },
        },
      ],
    });
    onTestFinished(() => runtime.close());
    const skills = runtime.server('gw').skills;
    expect(skills.supported).toBe(true);
    expect((await skills.list()).skills.map((s) => s.frontmatter.name)).toEqual(['pdf', 'pdf', 'review']);
    const dir = await mkdtemp(join(tmpdir(), 'mcpkit-skills-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const installed = await installSkill(skills, 'skill://alpha/pdf/SKILL.md', dir);
    expect(installed.files.map((f) => [f.path, f.verified])).toEqual([
      ['SKILL.md', true],
      ['references/GUIDE.md', true],
      ['scripts/fill.py', true],
    ]);
    expect(await readFile(join(dir, 'pdf', 'scripts', 'fill.py'), 'utf8')).toBe('print("filled")\n');
  }, 30_000);

  it('pages skills/list (100 a page) over the union of upstreams that page their own', async () => {
    const { connected, skills } = await skillsThrough({}, { SKILLS_MANY: '150' });
    const page = z.looseObject({ skills: z.array(z.unknown()), nextCursor: z.string().optional() });
    const first = await connected.client.request({ method: 'skills/list', params: {} }, page);
    expect(first.skills).toHaveLength(100);
    const second = await connected.client.request(
      { method: 'skills/list', params: { cursor: first.nextCursor } },
      page,
    );
    expect([second.skills.length, second.nextCursor]).toEqual([53, undefined]);
    expect((await skills.list()).skills).toHaveLength(153);
  }, 30_000);
});

async function skillsThrough2(servers: RuntimeServerConfig[], options: Partial<GatewayOptions> = {}) {
  const { gateway } = await gatewayOf(servers, options);
  return { skills: new SkillsClient((await clientOf(gateway)).client) };
}
