// mcpkit/gateway — everything exported here is public API.

export {
  type Catalog,
  type ExposedPrompt,
  type ExposedTool,
  exposedName,
  type PrefixMode,
} from './catalog.js';
export { type ServerSelection, selectedServers, type Watch, watchFiles } from './config-source.js';
export { Gateway, type GatewayOptions, type GatewayProfile } from './gateway.js';
export { type AuditEntry, AuditLog, type AuditLogOptions, argumentsDigest } from './observers/audit.js';
export { CallEvents, type CallObserver, type CallOutcome, type CallRecord } from './observers/call-events.js';
export { Dashboard, type DashboardOptions, LogBuffer, type LogLine } from './observers/dashboard/index.js';
export { CallTelemetry } from './observers/telemetry.js';
export { startTelemetryExport, type TelemetryExport, telemetryWanted } from './observers/telemetry-export.js';
export {
  FilePins,
  type PinBackend,
  type PinMode,
  type PinRecord,
  type PinSighting,
  PinStore,
  type PinTable,
  type PinVerdict,
  toolFingerprint,
} from './pins.js';
export { PINS_CHANNEL, RedisPins } from './pins-redis.js';
export { STATUS_URI } from './proxy-handlers.js';
export { type RevealedTarget, revealedOverRedis } from './revealed-redis.js';
export { asReplica } from './single-servers.js';
export { CALL_TOOL, TOOL_SEARCH, type ToolMatch, ToolSearch, toolIndexMarkdown } from './tool-search.js';
export type { UpstreamStatus } from './upstreams.js';
