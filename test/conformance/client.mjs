#!/usr/bin/env node
// The client under test for @modelcontextprotocol/conformance: the mcpkit CLI itself. The suite appends
// the server URL and names the scenario in MCP_CONFORMANCE_SCENARIO; each scenario maps to the mcpkit
// command a user would run for it.
import { run } from '../../dist/cli/run.js';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const commands = {
  initialize: ['tools', url],
  tools_call: ['call', url, 'add_numbers', '{"a":2,"b":3}'],
  'elicitation-sep1034-client-defaults': ['call', url, 'test_client_elicitation_defaults'],
  'sse-retry': ['call', url, 'test_reconnection'],
};
const argv = commands[scenario];
if (!argv) {
  process.stderr.write(`no mcpkit command for scenario ${scenario}\n`);
  process.exit(2);
}
process.exitCode = await run(argv);
