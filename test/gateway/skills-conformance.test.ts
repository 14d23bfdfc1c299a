import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, type Workspace } from '../helpers/cli.js';
import { type ConformanceCheck, runConformance, tally, WIRES } from '../helpers/conformance.js';
import { skillsServer } from '../helpers/extension-servers.js';
import { writeProjectConfig } from '../helpers/gateway.js';
import { startServingCli } from '../helpers/servers.js';

// The conformance suite's own Skills (SEP-2640) server scenarios, at both wires, against `mcpkit gateway` in
// front of two skills upstreams (one on each era): every check the suite can make passes through the gateway.
// The suite files the extension's scenarios off its spec timeline, so they run with --force.
const SCENARIOS = ['sep-2640-skills-enumeration', 'sep-2640-skills-manifest', 'sep-2640-skills-directory'];

describe('conformance 0.2 alpha, SEP-2640 server scenarios, through `mcpkit gateway`', () => {
  let ws: Workspace;
  let gateway: { url: string; stop: () => void } | undefined;
  beforeAll(async () => {
    ws = await createWorkspace();
    await writeProjectConfig(ws, { alpha: skillsServer('alpha'), beta: skillsServer('beta') });
    gateway = await startServingCli(['gateway', '--transport', 'http', '--no-dashboard'], {
      cwd: ws.project,
      env: ws.env,
    });
  }, 60_000);
  afterAll(async () => {
    gateway?.stop();
    await ws?.cleanup();
  });

  it.each(WIRES)(
    'passes every check it can make at %s, but one SHOULD on unique names',
    async (wire) => {
      const failed: string[] = [];
      const results: Record<string, string> = {};
      // One at a time: each run is a Node process, and the machine may have two cores.
      for (const scenario of SCENARIOS) {
        const args = [
          'server',
          '--url',
          gateway?.url as string,
          '--scenario',
          scenario,
          '--spec-version',
          wire,
        ];
        const run = await runConformance([...args, '--force'], 'next');
        Object.assign(results, tally(run.checks));
        const checks: ConformanceCheck[] = run.checks[scenario] ?? [];
        for (const c of checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING'))
          failed.push(`${c.id}: ${c.errorMessage}`);
      }
      // A SHOULD the gateway cannot keep: both upstreams serve a skill named `pdf`, and a skill's name is its
      // folder's and its SKILL.md's (renaming it would change the file its digest covers).
      expect(failed).toEqual([
        'sep-2640-names-should-be-unique: Names collide within one listing, so hosts MUST disambiguate them: "pdf" served at skill://alpha/pdf/SKILL.md and skill://beta/pdf/SKILL.md',
      ]);
      // skills/list's and skills/get's ttlMs and cacheScope are checked at 2026-07-28 only.
      const enumeration = wire === '2026-07-28' ? '31/32' : '29/30';
      expect(results).toEqual({
        'sep-2640-skills-enumeration': enumeration,
        'sep-2640-skills-manifest': '6/6',
        'sep-2640-skills-directory': '7/7',
      });
    },
    120_000,
  );
});
