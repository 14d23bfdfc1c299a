// mcpkit/serve — everything exported here is public API: serving an MCP server on stdio or HTTP for both
// protocol generations, with malformed-frame answers and DNS-rebinding protection.

export { BearerTokens } from './bearer-tokens.js';
export type { FrameIntercept, InterceptContext } from './guarded-stdio.js';
export { isAllowedRequest } from './host-check.js';
export {
  type HttpMount,
  type HttpPortReservation,
  type HttpServerHandle,
  reserveHttpPort,
  type ServeHttpOptions,
  serveOverHttp,
} from './http.js';
export { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from './http-handler.js';
export type { SessionEndReason, SessionLimits } from './http-sessions.js';
export { modernResult, SERVER_INFO_META_KEY } from './modern-result.js';
export { PAGE_SIZE, pageOf } from './pagination.js';
export { type ProgressUpdate, progressSender, progressTokenOf } from './progress.js';
export {
  PROTECTED_RESOURCE_METADATA,
  ProtectedResource,
  type ProtectedResourceOptions,
} from './protected-resource.js';
export { hashEntries, type RedisCommands, RedisState, SessionEventStore } from './redis-state.js';
export type { SharedSessions } from './session-open.js';
export { SecretBox, SessionSeal, sessionKey } from './session-seal.js';
export { type ServeStdioOptions, serveOverStdio } from './stdio.js';
export { failedResult, jsonResult, textResult } from './tool-result.js';
