#!/usr/bin/env node
// mcpkit as the skills host under test for the conformance suite's SEP-2640 client scenarios: the suite
// appends its server's URL and names the scenario in MCP_CONFORMANCE_SCENARIO. What a user runs: list the
// skills (no file may be read then), or read one skill (`mcpkit skill`), which must refuse a SKILL.md that
// fails verification and read nothing after it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../dist/cli/run.js';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const skill = 'skill://pdf-processing/SKILL.md';
const dir = mkdtempSync(join(tmpdir(), 'mcpkit-skills-host-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const steps =
  scenario === 'sep-2640-client-no-prefetch' ? [['skills', url]] : [['skill', url, skill, '--install', dir]];
let code = 0;
for (const argv of steps) code = Math.max(code, await run(argv));
process.exit(code);
