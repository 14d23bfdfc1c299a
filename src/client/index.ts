// mcpkit/client — everything exported here is public API.

export {
  type AuthorizationUrlHandler,
  followAuthorizationUrl,
} from './auth/login.js';
export { type LoginReason, NeedsLoginError } from './auth/needs-login.js';
export type { RuntimeAuthOptions } from './auth/remote-auth.js';
export {
  FileTokenStore,
  type IssuerRecord,
  type SavedTokens,
  type ServerAuthRecord,
  type TokenStore,
} from './auth/token-store.js';
export { RedisTokenStore } from './auth/token-store-redis.js';
export type { ConnectAttempt, Wire } from './connect-plan.js';
export type {
  FailureCategory,
  ListKind,
  RuntimeEventMap,
  RuntimeEventName,
  RuntimeListeners,
} from './events.js';
export type { HandlerContext, RuntimeHandlers } from './handlers.js';
export type { ProgressUpdate } from './progress-router.js';
export type { RelayResponse } from './raw-relay.js';
export type { RawRelayPort } from './relay-port.js';
export {
  Runtime,
  type RuntimeOptions,
  type RuntimeServerConfig,
  type StartupPolicy,
} from './runtime.js';
export type {
  CallToolOptions,
  RequestOptions,
  ServerFailure,
  ServerHandle,
  ServerStatus,
} from './server-handle.js';
export {
  type InstalledSkill,
  type InstallSkillOptions,
  installSkill,
  type ReadSkill,
  readSkill,
  skillFilePath,
} from './skill-install.js';
export {
  canonicalUri,
  type DirectoryResource,
  type ServerSkills,
  SKILLS_EXTENSION_ID,
  type Skill,
  type SkillAnswer,
  type SkillCacheScope,
  type SkillDirectory,
  type SkillFile,
  type SkillListing,
} from './skills.js';
export { ServerStartError } from './start-failure.js';
export {
  filterTools,
  isToolAllowed,
  namespacedToolName,
  safeToolName,
  ToolRegistry,
  type ToolSummary,
} from './tool-registry.js';
export { requiresTask, type TaskInfo } from './tool-tasks.js';
