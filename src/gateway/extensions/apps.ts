/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension, npm `@modelcontextprotocol/ext-apps`): a tool names
 * the `ui://` page a host shows for it in its `_meta`. Behind the gateway that page is listed and read under
 * an exposed URI (`extensions/uris.ts`), so the tool's `_meta` must name that one.
 */

/** Where the extension puts the page's URI: `_meta.ui.resourceUri`, and the older flat key. */
export const UI_META_KEY = 'ui';
export const LEGACY_RESOURCE_URI_META_KEY = 'ui/resourceUri';

/** A tool's `_meta` with the page it names (either key) rewritten; the same object when it names none. */
export function exposedToolMeta(
  meta: Record<string, unknown> | undefined,
  rewrite: (uri: string) => string,
): Record<string, unknown> | undefined {
  if (!meta) return meta;
  const ui = meta[UI_META_KEY] as { resourceUri?: unknown } | undefined;
  const legacy = meta[LEGACY_RESOURCE_URI_META_KEY];
  const hasUi = typeof ui === 'object' && ui !== null && typeof ui.resourceUri === 'string';
  if (!hasUi && typeof legacy !== 'string') return meta;
  return {
    ...meta,
    ...(hasUi ? { [UI_META_KEY]: { ...ui, resourceUri: rewrite(ui.resourceUri as string) } } : {}),
    ...(typeof legacy === 'string' ? { [LEGACY_RESOURCE_URI_META_KEY]: rewrite(legacy) } : {}),
  };
}
