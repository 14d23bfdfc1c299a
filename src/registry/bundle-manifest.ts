import { sep } from 'node:path';
import { z } from 'zod';
import type { StdioServer } from '../config/index.js';
import { type InputSpec, variableName } from './inputs.js';

/**
 * An MCP bundle's `manifest.json` (MCPB manifest 0.1-0.4, and the older `dxt_version`), read leniently:
 * unknown keys are kept and ignored; only what running the bundle needs is checked.
 */
const McpConfigSchema = z.looseObject({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  platform_overrides: z
    .record(
      z.string(),
      z.looseObject({
        command: z.string().optional(),
        args: z.array(z.string()).optional(),
        env: z.record(z.string(), z.string()).optional(),
      }),
    )
    .optional(),
});

/** One `user_config` option: what the user is asked when the bundle is added. */
export const UserConfigOptionSchema = z.looseObject({
  type: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  required: z.boolean().optional(),
  default: z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]).optional(),
  multiple: z.boolean().optional(),
  sensitive: z.boolean().optional(),
});

/** The parts of a bundle manifest mcpkit reads. */
export const BundleManifestSchema = z
  .looseObject({
    manifest_version: z.string().optional(),
    dxt_version: z.string().optional(),
    name: z.string().min(1),
    display_name: z.string().optional(),
    version: z.string().min(1),
    description: z.string().optional(),
    author: z.looseObject({ name: z.string() }).optional(),
    server: z.looseObject({
      type: z.string(),
      entry_point: z.string().min(1),
      mcp_config: McpConfigSchema.optional(),
    }),
    user_config: z.record(z.string(), UserConfigOptionSchema).optional(),
  })
  .refine((m) => m.manifest_version !== undefined || m.dxt_version !== undefined, {
    message: 'needs "manifest_version"',
  });

/** A bundle manifest as read. */
export type BundleManifest = z.infer<typeof BundleManifestSchema>;

/** A bundle's `user_config` as inputs, keyed by the option's name (`--set api_key=…`). */
export function bundleInputs(manifest: BundleManifest): InputSpec[] {
  return Object.entries(manifest.user_config ?? {}).map(([key, option]) => {
    const fallback = option.default;
    return {
      key,
      label: `${option.title ?? key} (${key})`,
      required: option.required === true,
      secret: option.sensitive === true,
      variable: variableName(key),
      format: option.type,
      ...(option.description === undefined ? {} : { description: option.description }),
      ...(fallback === undefined
        ? {}
        : { default: Array.isArray(fallback) ? fallback.join(',') : String(fallback) }),
    };
  });
}

/**
 * The entry that runs an unpacked bundle: its `mcp_config` (with this platform's override) where
 * `${__dirname}` is the unpacked directory, `${user_config.x}` the value decided for x, and the user's
 * folders `${HOME}`-relative references mcpkit expands when the server starts. Without an `mcp_config` the
 * entry point runs with the runtime its `server.type` names.
 */
export function bundleEntry(
  manifest: BundleManifest,
  dir: string,
  values: ReadonlyMap<string, string>,
  platform: NodeJS.Platform = process.platform,
): StdioServer {
  const base = manifest.server.mcp_config ?? defaultConfig(manifest);
  const override = base.platform_overrides?.[platform] ?? {};
  const command = override.command ?? base.command;
  const args = override.args ?? base.args ?? [];
  const env = { ...(base.env ?? {}), ...(override.env ?? {}) };
  const fill = (text: string) => substitute(text, dir, values);
  const filledArgs = args.flatMap((arg) => {
    // A whole-argument `${user_config.x}` of a multiple option is one argument per value; an unset one is none.
    const whole = /^\$\{user_config\.([^}]+)\}$/.exec(arg);
    if (whole?.[1] !== undefined) {
      const value = values.get(whole[1]);
      if (value === undefined) return [];
      return manifest.user_config?.[whole[1]]?.multiple ? value.split(',') : [value];
    }
    return [fill(arg)];
  });
  const filledEnv = Object.fromEntries(
    Object.entries(env).flatMap(([k, v]) => {
      const ref = /^\$\{user_config\.([^}]+)\}$/.exec(v);
      if (ref?.[1] !== undefined && !values.has(ref[1])) return [];
      return [[k, fill(v)]];
    }),
  );
  return {
    command: fill(command),
    ...(filledArgs.length > 0 ? { args: filledArgs } : {}),
    ...(Object.keys(filledEnv).length > 0 ? { env: filledEnv } : {}),
    cwd: dir,
  };
}

/** What a bundle without `mcp_config` runs: its entry point under the runtime of its type. */
function defaultConfig(manifest: BundleManifest): z.infer<typeof McpConfigSchema> {
  const entry = `\${__dirname}/${manifest.server.entry_point}`;
  if (manifest.server.type === 'node') return { command: 'node', args: [entry] };
  if (manifest.server.type === 'python') return { command: 'python3', args: [entry] };
  if (manifest.server.type === 'uv')
    return { command: 'uv', args: ['run', '--directory', '${__dirname}', entry] };
  return { command: entry };
}

const FOLDERS: Record<string, string> = {
  HOME: '${HOME}',
  DESKTOP: '${HOME}/Desktop',
  DOCUMENTS: '${HOME}/Documents',
  DOWNLOADS: '${HOME}/Downloads',
};

function substitute(text: string, dir: string, values: ReadonlyMap<string, string>): string {
  return text.replace(/\$\{([^}]+)\}/g, (raw, name: string) => {
    if (name === '__dirname') return dir;
    if (name === 'pathSeparator' || name === '/') return sep;
    if (name.startsWith('user_config.')) return values.get(name.slice('user_config.'.length)) ?? '';
    return FOLDERS[name] ?? raw;
  });
}
