import { z } from 'zod';
import type { ServerEntry } from '../config/index.js';

/**
 * Where an entry came from, kept on it as `source` by `mcpkit add`: a registry server (its registry, name
 * and version) or a bundle (its path or URL, version and SHA-256), with the non-secret inputs decided,
 * so `mcpkit outdated` can compare and `mcpkit update` can rebuild without asking again.
 */
export const EntrySourceSchema = z.looseObject({
  registry: z.string().optional(),
  name: z.string().optional(),
  bundle: z.string().optional(),
  version: z.string().optional(),
  sha256: z.string().optional(),
  inputs: z.record(z.string(), z.string()).optional(),
});

/** An entry's `source`: where `mcpkit add` found it. */
export type EntrySource = z.infer<typeof EntrySourceSchema>;

/** The registry source of an entry, or undefined when it was not added from a registry. */
export function registrySource(
  entry: ServerEntry,
): (EntrySource & { registry: string; name: string; version: string }) | undefined {
  const parsed = EntrySourceSchema.safeParse((entry as { source?: unknown }).source);
  if (!parsed.success) return undefined;
  const { registry, name, version } = parsed.data;
  if (registry === undefined || name === undefined || version === undefined) return undefined;
  return { ...parsed.data, registry, name, version };
}
