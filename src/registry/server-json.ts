import { z } from 'zod';

/**
 * The MCP Registry's `server.json` (schema 2025-12-11) and its API v0.1 envelopes, read leniently: every
 * object is loose, so a field a later schema adds is kept and ignored, never an error; only what mcpkit
 * needs to build an entry is checked.
 */

const inputShape = {
  description: z.string().optional(),
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  /** string, number, boolean or filepath (a later schema may add more: read as a string). */
  format: z.string().optional(),
  /** Fixed by the publisher: not asked for. `{name}`s in it come from `variables`. */
  value: z.string().optional(),
  default: z.string().optional(),
  placeholder: z.string().optional(),
  choices: z.array(z.string()).optional(),
};

/** One input of an entry (an argument, an environment variable, a header, a URL variable). */
export const RegistryInputSchema = z.looseObject({
  ...inputShape,
  variables: z.record(z.string(), z.looseObject(inputShape)).optional(),
});

/** A command-line argument: `positional` (its `value`, or asked for by `valueHint`) or `named` (`--flag value`). */
export const RegistryArgumentSchema = RegistryInputSchema.extend({
  type: z.enum(['positional', 'named']),
  name: z.string().optional(),
  valueHint: z.string().optional(),
  isRepeated: z.boolean().optional(),
});

/** An environment variable or an HTTP header. */
export const RegistryKeyValueSchema = RegistryInputSchema.extend({ name: z.string().min(1) });

/** How a package or a remote speaks MCP. */
export const RegistryTransportSchema = z.looseObject({
  type: z.string(),
  url: z.string().optional(),
  headers: z.array(RegistryKeyValueSchema).optional(),
  variables: z.record(z.string(), RegistryInputSchema).optional(),
});

/** A way to run the server locally: npm, pypi, oci, nuget, mcpb (a later schema may add more). */
export const RegistryPackageSchema = z.looseObject({
  registryType: z.string().min(1),
  registryBaseUrl: z.string().optional(),
  identifier: z.string().min(1),
  version: z.string().optional(),
  fileSha256: z.string().optional(),
  runtimeHint: z.string().optional(),
  transport: RegistryTransportSchema,
  runtimeArguments: z.array(RegistryArgumentSchema).optional(),
  packageArguments: z.array(RegistryArgumentSchema).optional(),
  environmentVariables: z.array(RegistryKeyValueSchema).optional(),
});

/** A hosted endpoint: Streamable HTTP or SSE, with its headers and URL variables. */
export const RegistryRemoteSchema = RegistryTransportSchema.extend({ url: z.string().min(1) });

/** A `server.json`: one version of one server. */
export const ServerDetailSchema = z.looseObject({
  name: z.string().min(1),
  description: z.string().default(''),
  title: z.string().optional(),
  version: z.string().min(1),
  websiteUrl: z.string().optional(),
  repository: z.looseObject({ url: z.string().optional(), source: z.string().optional() }).optional(),
  packages: z.array(RegistryPackageSchema).optional(),
  remotes: z.array(RegistryRemoteSchema).optional(),
});

/** The registry's own facts about a version (status, dates, whether it is the latest). */
export const OfficialMetaSchema = z.looseObject({
  status: z.string().optional(),
  statusMessage: z.string().optional(),
  publishedAt: z.string().optional(),
  updatedAt: z.string().optional(),
  isLatest: z.boolean().optional(),
});

/** The `_meta` key under which the registry puts {@link OfficialMetaSchema}. */
export const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';

/** One item of an API answer: the server.json and the registry's metadata. */
export const ServerResponseSchema = z.looseObject({
  server: ServerDetailSchema,
  _meta: z.looseObject({ [OFFICIAL_META]: OfficialMetaSchema.optional() }).optional(),
});

/** `GET /v0.1/servers`: a page of servers and the cursor of the next one. */
export const ServerListSchema = z.looseObject({
  servers: z.array(ServerResponseSchema),
  metadata: z.looseObject({ nextCursor: z.string().optional(), count: z.number().optional() }).optional(),
});

/** One input of a registry entry. */
export type RegistryInput = z.infer<typeof RegistryInputSchema>;
/** A command-line argument of a package. */
export type RegistryArgument = z.infer<typeof RegistryArgumentSchema>;
/** An environment variable or header of a registry entry. */
export type RegistryKeyValue = z.infer<typeof RegistryKeyValueSchema>;
/** A package of a registry entry. */
export type RegistryPackage = z.infer<typeof RegistryPackageSchema>;
/** A remote endpoint of a registry entry. */
export type RegistryRemote = z.infer<typeof RegistryRemoteSchema>;
/** A `server.json`: one version of one server. */
export type ServerDetail = z.infer<typeof ServerDetailSchema>;
/** One server version with the registry's metadata. */
export type ServerResponse = z.infer<typeof ServerResponseSchema>;
/** A page of `GET /v0.1/servers`. */
export type ServerList = z.infer<typeof ServerListSchema>;

/** The lifecycle status of a version: `active` unless the registry says otherwise. */
export function statusOf(item: ServerResponse): string {
  return item._meta?.[OFFICIAL_META]?.status ?? 'active';
}
