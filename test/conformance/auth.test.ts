import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, runConformance, type SuiteVersion } from '../helpers/conformance.js';

// The official suite's client-mode OAuth scenarios, with the mcpkit CLI as the client (test/conformance/
// client.mjs runs `mcpkit call` in the documented headless mode). Each scenario runs at every wire its
// suite applies it to. What does not pass is out of scope, named in docs/auth.md with the reason.
const client = `${process.execPath} ${join(root, 'test/conformance/client.mjs')}`;

/** `name: N passed, M failed` lines of a `--suite` run's summary. */
function summary(output: string): Record<string, string> {
  const results: Record<string, string> = {};
  const tail = output.slice(output.indexOf('SUMMARY ==='));
  for (const match of tail.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gmu))
    results[match[1] as string] = match[3] === '0' ? 'passed' : `${match[3]} failed`;
  return results;
}

const BOTH_WIRES = [
  'metadata-default',
  'metadata-var1',
  'metadata-var2',
  'metadata-var3',
  'basic-cimd',
  'scope-from-www-authenticate',
  'scope-from-scopes-supported',
  'scope-omitted-when-undefined',
  'scope-step-up',
  'scope-retry-limit',
  'token-endpoint-auth-basic',
  'token-endpoint-auth-post',
  'token-endpoint-auth-none',
  'pre-registration',
].map((name) => `auth/${name}`);
const TOKEN_ENDPOINT = BOTH_WIRES.filter((name) => name.startsWith('auth/token-endpoint'));
const allPassed = (names: string[]) => Object.fromEntries(names.map((name) => [name, 'passed']));

describe('conformance, client mode, OAuth: the whole auth suite per wire', () => {
  it.each<[SuiteVersion, string, string[]]>([
    ['next', '2025-06-18', TOKEN_ENDPOINT],
    ['next', '2025-11-25', BOTH_WIRES],
    ['next', '2026-07-28', BOTH_WIRES],
    ['stable', 'its default', BOTH_WIRES],
    ['stable', '2025-06-18', TOKEN_ENDPOINT],
  ])(
    'suite %s at %s: every scenario passes',
    async (version, wire, expected) => {
      const args = ['client', '--command', client, '--suite', 'auth'];
      if (/^\d/.test(wire)) args.push('--spec-version', wire);
      const { output } = await runConformance(args, version);
      expect(summary(output)).toEqual(allPassed(expected));
    },
    120_000,
  );
});

describe('conformance, client mode, OAuth: the scenarios outside the suite runs', () => {
  it.each<[SuiteVersion, string, string]>([
    ['next', 'auth/2025-03-26-oauth-metadata-backcompat', '2025-03-26'],
    ['next', 'auth/2025-03-26-oauth-endpoint-fallback', '2025-03-26'],
    ['next', 'auth/resource-mismatch', '2026-07-28'],
    ['next', 'auth/offline-access-scope', '2026-07-28'],
    ['next', 'auth/offline-access-not-supported', '2026-07-28'],
    ['next', 'auth/authorization-server-migration', '2026-07-28'],
    ['next', 'auth/iss-supported', '2026-07-28'],
    ['next', 'auth/iss-not-advertised', '2026-07-28'],
    ['next', 'auth/iss-supported-missing', '2026-07-28'],
    ['next', 'auth/iss-wrong-issuer', '2026-07-28'],
    ['next', 'auth/iss-unexpected', '2026-07-28'],
    ['next', 'auth/iss-normalized', '2026-07-28'],
    ['next', 'auth/metadata-issuer-mismatch', '2026-07-28'],
    ['next', 'auth/client-credentials-basic', 'extension'],
    ['next', 'auth/client-credentials-jwt', 'extension'],
    ['next', 'auth/dpop', 'extension'],
    ['next', 'auth/dpop-nonce', 'extension'],
    ['stable', 'auth/2025-03-26-oauth-endpoint-fallback', 'its default'],
    ['stable', 'auth/resource-mismatch', 'its default'],
    ['stable', 'auth/offline-access-scope', 'its default'],
    ['stable', 'auth/offline-access-not-supported', 'its default'],
    ['stable', 'auth/client-credentials-basic', 'extension'],
    ['stable', 'auth/client-credentials-jwt', 'extension'],
  ])(
    'suite %s: %s (wire %s) passes every check',
    async (version, scenario, wire) => {
      const args = ['client', '--command', client, '--scenario', scenario];
      if (/^\d/.test(wire)) args.push('--spec-version', wire);
      const { code, output } = await runConformance(args, version);
      expect(output).toMatch(/Passed: (\d+)\/\1, 0 failed, 0 warnings/);
      expect(code).toBe(0);
    },
    60_000,
  );
});
