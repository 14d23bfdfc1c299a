#!/usr/bin/env node
// The `mcpkit` executable: run the CLI and hand its status to the process.
import { run } from './run.js';

process.exitCode = await run(process.argv.slice(2));
