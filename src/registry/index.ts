// mcpkit/registry — everything exported here is public API.

export {
  installBundle,
  isBundleReference,
  type OpenedBundle,
  openBundle,
  readBundleBytes,
} from './bundle.js';
export { type BundleManifest, BundleManifestSchema, bundleEntry, bundleInputs } from './bundle-manifest.js';
export type { BundleSignature, SignerTrust } from './bundle-signature.js';
export { packageInputs, remoteInputs } from './entry-inputs.js';
export {
  type AskInput,
  type InputSpec,
  type ResolvedInputs,
  type ResolveInputsOptions,
  resolveInputs,
  variableName,
} from './inputs.js';
export {
  entryFromBundle,
  entryFromRegistry,
  entryFromServer,
  type InstalledEntry,
  type InstallOptions,
  localName,
} from './install.js';
export {
  chooseInstallable,
  type Installable,
  packageEntry,
  RUNNABLE_PACKAGES,
  remoteEntry,
  runsWith,
} from './package-entry.js';
export { type EntrySource, EntrySourceSchema, registrySource } from './provenance.js';
export {
  createRegistryClient,
  DEFAULT_REGISTRY_URL,
  type RegistryClient,
  type RegistryClientOptions,
  type RegistrySearchOptions,
} from './registry-client.js';
export {
  OFFICIAL_META,
  type RegistryArgument,
  type RegistryInput,
  type RegistryKeyValue,
  type RegistryPackage,
  type RegistryRemote,
  type ServerDetail,
  ServerDetailSchema,
  type ServerList,
  ServerListSchema,
  type ServerResponse,
  ServerResponseSchema,
  statusOf,
} from './server-json.js';
