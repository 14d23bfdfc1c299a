/**
 * The sandbox a stdio server runs in (docs/sandbox.md): a profile resolved from the entry's `sandbox` key,
 * bubblewrap's command line for it, the network proxy, the state and denials shown to users, learn and check.
 * Processes are spawned by `internal/` (and the stdio transport through it); this room only plans them.
 */
export { bwrapArgs, type PrivateDirs, SANDBOX_PROXY_PORT } from './bwrap-args.js';
export {
  prepareSandbox,
  type SandboxLaunch,
  type SandboxLaunchOptions,
  SandboxUnavailableError,
  sandboxParentDir,
} from './launch.js';
export { type Denial, denialsOf, hostPattern, learnedProfile, type Observed } from './learn.js';
export { hostAllowed, type NetworkProxy, type ProxyEvent, startNetworkProxy } from './network-proxy.js';
export type { StartStep } from './npx-package.js';
export { DEFAULT_DENIED_IN_HOME, expandPath, resolveProfile, type SandboxProfile } from './profile.js';
export {
  denialLine,
  deniedPathIn,
  onSandboxDenial,
  recordDenial,
  type SandboxDenial,
  type SandboxState,
  type SandboxStatus,
  sandboxStatus,
  setSandboxState,
} from './sandbox-state.js';
export { seatbeltProfile } from './seatbelt.js';
export { forgetSandboxSupport, type SandboxSupport, sandboxSupport } from './support.js';
export { type PathAccess, pathAccesses } from './trace.js';
