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
export { type PinMode, PinStore, type PinVerdict, toolFingerprint } from './pins.js';
export { STATUS_URI } from './proxy-handlers.js';
export { CALL_TOOL, TOOL_SEARCH, type ToolMatch, ToolSearch, toolIndexMarkdown } from './tool-search.js';
export type { UpstreamStatus } from './upstreams.js';
