import type { SandboxSetting } from '../schema.js';
import { isRecord, type NativeServer } from './types.js';

/**
 * A stdio entry's `sandbox` in clients' files. VS Code has its own (`"sandboxEnabled": true` on the server,
 * its sandbox settings in `sandbox` — the sandbox runtime's names: `filesystem.allowWrite`, `denyRead`,
 * `allowRead`, `network.allowedDomains` — on the server or once for the whole file); every other client
 * gets mcpkit's own `sandbox` key, which they ignore and mcpkit reads back, so it survives a round trip.
 */
export type SandboxKeyStyle = 'vscode' | 'mcpkit';

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;

/** The mcpkit `sandbox` of a native entry; `take` marks each key it reads as imported. */
export function importSandbox(
  style: SandboxKeyStyle,
  take: (key: string) => unknown,
  notes: string[],
): unknown {
  if (style === 'mcpkit') return take('sandbox');
  const enabled = take('sandboxEnabled');
  const settings = take('sandbox');
  if (enabled === undefined && settings === undefined) return undefined;
  if (enabled !== true) return enabled === false ? false : undefined;
  if (!isRecord(settings)) return true;
  const fs = isRecord(settings.filesystem) ? settings.filesystem : {};
  const net = isRecord(settings.network) ? settings.network : {};
  const read = strings(fs.allowRead);
  const write = strings(fs.allowWrite);
  const deny = strings(fs.denyRead);
  const allow = strings(net.allowedDomains);
  if (fs.denyWrite !== undefined)
    notes.push('sandbox.filesystem.denyWrite not imported (mcpkit writes only where allowWrite says)');
  if (net.deniedDomains !== undefined)
    notes.push('sandbox.network.deniedDomains not imported (mcpkit reaches only the allowed domains)');
  const filesystem = { ...(read ? { read } : {}), ...(write ? { write } : {}), ...(deny ? { deny } : {}) };
  const setting = {
    ...(Object.keys(filesystem).length > 0 ? { filesystem } : {}),
    ...(allow ? { network: { allow } } : {}),
  };
  return Object.keys(setting).length > 0 ? setting : true;
}

/** The native keys for an entry's `sandbox` (nothing when it has none). */
export function exportSandbox(
  style: SandboxKeyStyle,
  sandbox: SandboxSetting | undefined,
): Record<string, unknown> {
  if (sandbox === undefined) return {};
  if (style === 'mcpkit') return { sandbox };
  if (typeof sandbox === 'boolean') return { sandboxEnabled: sandbox };
  const fs = sandbox.filesystem ?? {};
  const filesystem = {
    ...(fs.read ? { allowRead: fs.read } : {}),
    ...(fs.write ? { allowWrite: fs.write } : {}),
    ...(fs.deny ? { denyRead: fs.deny } : {}),
  };
  const settings = {
    ...(Object.keys(filesystem).length > 0 ? { filesystem } : {}),
    ...(sandbox.network?.allow ? { network: { allowedDomains: sandbox.network.allow } } : {}),
  };
  return { sandboxEnabled: true, ...(Object.keys(settings).length > 0 ? { sandbox: settings } : {}) };
}

/**
 * VS Code's servers, each sandboxed one given the file's own `sandbox` settings when it has none of its
 * own: what VS Code applies to it is what mcpkit imports.
 */
export function withFileSandbox(doc: Record<string, unknown>, servers: NativeServer[]): NativeServer[] {
  if (!isRecord(doc.sandbox)) return servers;
  return servers.map((server) =>
    isRecord(server.value) && server.value.sandboxEnabled === true && server.value.sandbox === undefined
      ? { ...server, value: { ...server.value, sandbox: doc.sandbox } }
      : server,
  );
}
