#!/usr/bin/env node
// The client under test for the official conformance suite: the mcpkit CLI itself. The suite appends the
// server URL, names the scenario in MCP_CONFORMANCE_SCENARIO and, for some, the calls to make in
// MCP_CONFORMANCE_CONTEXT; each scenario maps to the mcpkit commands a user would run for it.
//
// Auth scenarios (`auth/*`) run `mcpkit call` on a configured server in a fresh config dir, in the
// documented headless mode (MCPKIT_AUTH_HEADLESS=1: mcpkit fetches the authorization URL itself and
// follows its redirects, as the suite's authorization server approves at once). What the suite hands over
// in MCP_CONFORMANCE_CONTEXT (a pre-registered client, client-credentials secrets, a private key) goes
// into the server entry's `oauth` settings, the way a user would write them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { run } from '../../dist/cli/run.js';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');

/** What a user does against a server they know nothing about: look at it, then use each kind of thing. */
const explore = [
  ['tools', url],
  ['resources', url],
  ['prompts', url],
];

const commands = {
  initialize: [['tools', url]],
  tools_call: [['call', url, 'add_numbers', '{"a":2,"b":3}']],
  'elicitation-sep1034-client-defaults': [['call', url, 'test_client_elicitation_defaults']],
  'sse-retry': [['call', url, 'test_reconnection']],
  'request-metadata': [
    ['tools', url],
    ['call', url, 'add_numbers', '{"a":2,"b":3}'],
  ],
  'http-standard-headers': explore,
  'http-invalid-tool-headers': [
    ['tools', url],
    ['call', url, 'valid_tool', '{"region":"us-west1"}'],
  ],
  'sep-2322-client-request-state': [
    'test_mrtr_echo_state',
    'test_mrtr_no_state',
    'test_mrtr_unrelated',
    'test_mrtr_no_result_type',
  ].map((tool) => ['call', url, tool]),
  'json-schema-ref-no-deref': [['tools', url]],
  'json-schema-2020-12-preservation': [['tools', url]],
};

/** `mcpkit tools <url> --json` captured: the tools as the CLI shows them. */
async function listedTools() {
  let out = '';
  const io = {
    out: (text) => {
      out += text;
    },
    err: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    env: process.env,
    stdin: Readable.from([]),
    stderrIsTTY: false,
  };
  if ((await run(['tools', url, '--json'], io)) !== 0) return [];
  const parsed = JSON.parse(out);
  return parsed.flatMap((server) => server.tools ?? []);
}

if (scenario === 'json-schema-2020-12-preservation') {
  // The scenario's tool echoes its own input schema back: what the CLI listed is what it must keep.
  const tool = (await listedTools()).find((t) => t.name === 'json_schema_2020_12_tool');
  if (tool)
    commands[scenario] = [['call', url, 'json_schema_echo', JSON.stringify({ schema: tool.inputSchema })]];
}

/** The `oauth` settings of the server entry for an auth scenario. */
function oauthSettings() {
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

if (scenario.startsWith('auth/')) {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-conformance-auth-'));
  // Gone with the run, however it ends (the suite runs this client once per scenario and wire).
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, '.mcp.json'),
    JSON.stringify({ mcpServers: { remote: { url, oauth: oauthSettings() } } }),
  );
  process.chdir(dir);
  process.env.MCPKIT_CONFIG_DIR = join(dir, 'config');
  process.env.MCPKIT_AUTH_HEADLESS = '1';
  commands[scenario] = [['call', 'remote', 'test-tool']];
}

const toolCalls = Array.isArray(context.toolCalls)
  ? context.toolCalls.map((c) => ['call', url, c.name, JSON.stringify(c.arguments ?? {})])
  : undefined;
const steps = toolCalls ?? commands[scenario];
if (!steps) {
  process.stderr.write(`no mcpkit command for scenario ${scenario}\n`);
  process.exit(2);
}
let code = 0;
for (const argv of steps) {
  const exit = await run(argv);
  // The SDK refuses a 2026-07-28 result without resultType (the scenario checks only that no retry follows).
  if (argv[2] !== 'test_mrtr_no_result_type') code = Math.max(code, exit);
}
process.exitCode = code;
