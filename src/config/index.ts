// mcpkit/config — everything exported here is public API.
export { type ClientContextOptions, clientContext } from './client-context.js';
export { findCommand, guiPath } from './command-path.js';
export {
  DOCTOR_SOURCES,
  type DoctorOptions,
  type DoctorReport,
  diagnose,
  serverTarget,
} from './doctor.js';
export type { CheckContext, DoctorCheck, DoctorFinding } from './doctor-checks.js';
export { type DoctorFile, type DoctorServer, type DoctorSource, GUI_CLIENTS } from './doctor-sources.js';
export { type ExportOptions, type ExportReport, exportServers } from './export.js';
export { clientFormat, isClientId } from './formats/clients.js';
export { CLIENT_IDS, type ClientContext, type ClientFormat, type ClientId } from './formats/types.js';
export { commandRunsMcpkitGateway, GATEWAY_LOOP, runsMcpkitGateway } from './gateway-entry.js';
export {
  type ImportOptions,
  type ImportReport,
  importServers,
  type ServerNote,
} from './import.js';
export { formatKeyHints, type KeyHint, keyHints } from './key-hints.js';
export { MASK, maskEntry, maskUrl } from './mask.js';
export {
  type ConfigLocationOptions,
  configFile,
  homeDirectory,
  SCOPES,
  type Scope,
  userCacheDir,
  userConfigDir,
  userDataDir,
  userStateDir,
} from './paths.js';
export {
  findProfile,
  type LoadedProfiles,
  loadProfiles,
  PROFILES_KEY,
  type Profile,
  ProfileNameSchema,
  ProfileSchema,
} from './profiles.js';
export {
  checkServerName,
  formatJsonPath,
  isStdioServer,
  type OAuthSettings,
  OAuthSettingsSchema,
  type ParseEntryResult,
  parseServerEntry,
  type RemoteServer,
  RemoteServerSchema,
  type SandboxSetting,
  SandboxSettingSchema,
  type ServerEntry,
  ServerEntrySchema,
  ServerNameSchema,
  type StdioServer,
  StdioServerSchema,
  sanitizeName,
  type TransportKind,
  transportOf,
  type ValidationIssue,
} from './schema.js';
export { isPlainSecret, looksLikeToken, maskArgs, maskSecretsIn, secretArgs } from './secrets.js';
export { serverIdentity } from './server-identity.js';
export {
  type AddServersOptions,
  addServers,
  type ConfiguredServer,
  checkNamedEntry,
  effectiveServers,
  findServer,
  type LoadedConfig,
  loadConfig,
  removeServerFrom,
  SERVERS_KEY,
  scopesDefining,
} from './store.js';
export { expandServerEntry, findVariables, replaceVariables, type VariableReference } from './variables.js';
