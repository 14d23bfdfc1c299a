#!/usr/bin/env node
// The client under test for @modelcontextprotocol/conformance: the mcpkit CLI itself. The suite appends
// the server URL and names the scenario in MCP_CONFORMANCE_SCENARIO; each scenario maps to the mcpkit
// command a user would run for it.
//
// Auth scenarios (`auth/*`) run `mcpkit call` on a configured server in a fresh config dir, in the
// documented headless mode (MCPKIT_AUTH_HEADLESS=1: mcpkit fetches the authorization URL itself and
// follows its redirects, as the suite's authorization server approves at once). What the suite hands over
// in MCP_CONFORMANCE_CONTEXT (a pre-registered client, client-credentials secrets, a private key) goes
// into the server entry's `oauth` settings, the way a user would write them.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../dist/cli/run.js';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const commands = {
  initialize: ['tools', url],
  tools_call: ['call', url, 'add_numbers', '{"a":2,"b":3}'],
  'elicitation-sep1034-client-defaults': ['call', url, 'test_client_elicitation_defaults'],
  'sse-retry': ['call', url, 'test_reconnection'],
};

/** The `oauth` settings of the server entry for an auth scenario. */
function oauthSettings() {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
  const oauth = {};
  if (context.client_id) oauth.clientId = context.client_id;
  if (context.client_secret) oauth.clientSecret = '${CONFORMANCE_CLIENT_SECRET}';
  if (context.private_key_pem) {
    oauth.privateKey = '${CONFORMANCE_PRIVATE_KEY}';
    oauth.signingAlgorithm = context.signing_algorithm ?? 'ES256';
    oauth.tokenEndpointAuthMethod = 'private_key_jwt';
  }
  if (scenario.startsWith('auth/client-credentials')) oauth.grant = 'client_credentials';
  // CIMD: the document URL is configurable (`oauth.clientMetadataUrl`); the suite expects its own.
  if (scenario === 'auth/basic-cimd')
    oauth.clientMetadataUrl = 'https://conformance-test.local/client-metadata.json';
  process.env.CONFORMANCE_CLIENT_SECRET = context.client_secret ?? '';
  process.env.CONFORMANCE_PRIVATE_KEY = context.private_key_pem ?? '';
  return oauth;
}

let argv = commands[scenario];
if (!argv && scenario.startsWith('auth/')) {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-conformance-auth-'));
  writeFileSync(
    join(dir, '.mcp.json'),
    JSON.stringify({ mcpServers: { remote: { url, oauth: oauthSettings() } } }),
  );
  process.chdir(dir);
  process.env.MCPKIT_CONFIG_DIR = join(dir, 'config');
  process.env.MCPKIT_AUTH_HEADLESS = '1';
  argv = ['call', 'remote', 'test-tool'];
}
if (!argv) {
  process.stderr.write(`no mcpkit command for scenario ${scenario}\n`);
  process.exit(2);
}
process.exitCode = await run(argv);
