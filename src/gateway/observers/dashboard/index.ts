// The gateway's web dashboard: served beside the MCP endpoint, found by `mcpkit dashboard`.
export { Dashboard, type DashboardOptions } from './dashboard.js';
export { LogBuffer, type LogLine } from './log-buffer.js';
export { type GatewayRuntime, runningGateways, runtimeDir, writeGatewayRuntime } from './runtime-file.js';
