import { isStdioServer, type ServerEntry, type TransportKind, transportOf } from '../schema.js';

export { isRecord } from './types.js';

import { exportSandbox, importSandbox, type SandboxKeyStyle } from './sandbox-keys.js';
import {
  type ClientContext,
  type ClientFormat,
  type ClientId,
  type Conversion,
  isRecord,
  type NativeServer,
} from './types.js';
import { exportVariables, importVariables, type VariableStyle } from './variable-syntax.js';

/**
 * The JSON clients differ only in a handful of choices (key names, units, what they support), so each is
 * described by a spec and one converter serves them all.
 */
export interface JsonClientSpec {
  id: ClientId;
  label: string;
  syntax: 'json' | 'jsonc';
  serversKey: string;
  importPaths(ctx: ClientContext): string[];
  exportPath(ctx: ClientContext): string;
  /** Native `type` values and the transport each means; absent types are inferred from the keys. */
  typeNames: Readonly<Record<string, TransportKind>>;
  /** When the client's file carries `type`: on every entry, or never. */
  writeType: 'always' | 'never';
  /** The `type` written for each transport when `writeType` is `always`. */
  nativeType?: Readonly<Partial<Record<TransportKind, string>>>;
  /** Keys that hold a remote URL, in the order they are looked for, and the transport each implies. */
  urlKeys: readonly { key: string; transport: TransportKind }[];
  /** The key a remote URL is written under, per transport; absent when the client cannot run it. */
  exportUrlKey: Readonly<Partial<Record<'http' | 'sse', string>>>;
  cwd: boolean;
  timeoutUnit?: 'ms' | 's';
  disabled: boolean;
  toolFilters: boolean;
  variables: VariableStyle;
  /** How a stdio entry's sandbox is written: VS Code's `sandboxEnabled`, else mcpkit's own `sandbox` key. */
  sandbox?: SandboxKeyStyle;
  /** See {@link ClientFormat.entryPath}. */
  entryPath?(doc: Record<string, unknown>, ctx: ClientContext, name: string): readonly string[];
  /** See {@link ClientFormat.readsProjectFile}. */
  readsProjectFile?: boolean;
  /** Reads the servers out of a parsed file; by default `doc[serversKey]`. */
  readServers?(
    doc: Record<string, unknown>,
    ctx: ClientContext,
  ): { servers: NativeServer[]; notes: string[] };
}

/** Builds a {@link ClientFormat} from a spec. */
export function jsonClient(spec: JsonClientSpec): ClientFormat {
  return {
    id: spec.id,
    label: spec.label,
    syntax: spec.syntax,
    importPaths: spec.importPaths,
    exportPath: spec.exportPath,
    serversPath: [spec.serversKey],
    readServers: spec.readServers ?? ((doc) => ({ servers: serversAt(doc, [spec.serversKey]), notes: [] })),
    fromNative: (value) => fromNative(spec, value),
    toNative: (entry) => toNative(spec, entry),
    importText: (text) => importVariables(text, spec.variables, '', spec.label, []),
    ...(spec.entryPath ? { entryPath: spec.entryPath } : {}),
    ...(spec.readsProjectFile ? { readsProjectFile: true } : {}),
  };
}

/** The entries of the object at `path` in a parsed file, or a note when it is not an object. */
export function serversAt(doc: Record<string, unknown>, path: string[]): NativeServer[] {
  let node: unknown = doc;
  for (const key of path) node = isRecord(node) ? node[key] : undefined;
  if (!isRecord(node)) return [];
  return Object.entries(node).map(([name, value]) => ({ name, value, path: [...path, name] }));
}

function fromNative(spec: JsonClientSpec, value: unknown): Conversion<Record<string, unknown>> {
  if (!isRecord(value)) return { notes: ['not an object'] };
  const notes: string[] = [];
  const used = new Set<string>();
  const take = (key: string): unknown => {
    if (value[key] === undefined) return undefined;
    used.add(key);
    return value[key];
  };
  const str = (text: unknown, where: string) =>
    typeof text === 'string' ? importVariables(text, spec.variables, where, spec.label, notes) : text;
  const strMap = (record: unknown, where: string) =>
    isRecord(record)
      ? Object.fromEntries(Object.entries(record).map(([k, v]) => [k, str(v, `${where}.${k}`)]))
      : record;

  let transport: TransportKind | undefined;
  const type = take('type');
  if (type !== undefined) {
    transport =
      typeof type === 'string' && Object.hasOwn(spec.typeNames, type) ? spec.typeNames[type] : undefined;
    if (!transport) return { notes: [`type ${JSON.stringify(type)} is not a transport mcpkit knows`] };
  }
  let url: unknown;
  for (const { key, transport: implied } of spec.urlKeys) {
    if (value[key] === undefined) continue;
    url = take(key);
    transport ??= implied;
    break;
  }
  if (transport === undefined && value.command !== undefined) transport = 'stdio';

  const entry: Record<string, unknown> = {};
  if (transport === 'stdio' || (transport === undefined && url === undefined)) {
    entry.command = str(take('command'), 'command');
    const args = take('args');
    if (args !== undefined)
      entry.args = Array.isArray(args) ? args.map((a, i) => str(a, `args[${i}]`)) : args;
    const env = take('env');
    if (env !== undefined) entry.env = strMap(env, 'env');
    const cwd = take('cwd');
    if (cwd !== undefined) entry.cwd = str(cwd, 'cwd');
    const sandbox = importSandbox(spec.sandbox ?? 'mcpkit', take, notes);
    if (sandbox !== undefined) entry.sandbox = sandbox;
  } else {
    entry.type = transport;
    entry.url = str(url, 'url');
    const headers = take('headers');
    if (headers !== undefined) entry.headers = strMap(headers, 'headers');
  }
  if (spec.timeoutUnit) {
    const timeout = take('timeout');
    if (timeout !== undefined) {
      entry.timeout = typeof timeout === 'number' && spec.timeoutUnit === 's' ? timeout * 1000 : timeout;
    }
  }
  if (spec.disabled) {
    const disabled = take('disabled');
    if (disabled !== undefined) entry.disabled = disabled;
  }
  if (spec.toolFilters) {
    for (const key of ['includeTools', 'excludeTools']) {
      const list = take(key);
      if (list !== undefined) entry[key] = list;
    }
  }
  const unknownKeys = Object.keys(value).filter((key) => !used.has(key) && value[key] !== undefined);
  for (const key of unknownKeys) notes.push(`"${key}" not imported (mcpkit has no equivalent)`);
  return { value: entry, notes, unknownKeys };
}

function toNative(spec: JsonClientSpec, entry: ServerEntry): Conversion<Record<string, unknown>> {
  const notes: string[] = [];
  const transport = transportOf(entry);
  if (entry.disabled && !spec.disabled) {
    return { notes: [`disabled, and ${spec.label} has no way to keep a disabled server; not exported`] };
  }
  const str = (text: string, where: string) =>
    exportVariables(text, spec.variables, where, spec.label, notes);
  const strMap = (record: Record<string, string>, where: string) =>
    Object.fromEntries(Object.entries(record).map(([k, v]) => [k, str(v, `${where}.${k}`)]));
  const out: Record<string, unknown> = {};
  if (spec.writeType === 'always') out.type = spec.nativeType?.[transport] ?? transport;
  if (isStdioServer(entry)) {
    out.command = str(entry.command, 'command');
    if (entry.args) out.args = entry.args.map((a, i) => str(a, `args[${i}]`));
    if (entry.env) out.env = strMap(entry.env, 'env');
    if (entry.cwd !== undefined) {
      if (spec.cwd) out.cwd = str(entry.cwd, 'cwd');
      else notes.push(`cwd "${entry.cwd}" dropped: ${spec.label} has no working-directory setting`);
    }
    Object.assign(out, exportSandbox(spec.sandbox ?? 'mcpkit', entry.sandbox));
  } else {
    const urlKey = spec.exportUrlKey[transport as 'http' | 'sse'];
    if (!urlKey)
      return { notes: [`${spec.label} cannot run ${transport} servers from its config; not exported`] };
    out[urlKey] = str(entry.url, 'url');
    if (entry.headers) out.headers = strMap(entry.headers, 'headers');
  }
  if (entry.timeout !== undefined) {
    if (spec.timeoutUnit)
      out.timeout = spec.timeoutUnit === 's' ? Math.ceil(entry.timeout / 1000) : entry.timeout;
    else notes.push(`timeout dropped: ${spec.label} has no per-server timeout`);
  }
  if (entry.startupTimeout !== undefined)
    notes.push(`startupTimeout dropped: ${spec.label} has no such setting`);
  if (spec.disabled && entry.disabled !== undefined) out.disabled = entry.disabled;
  for (const key of ['includeTools', 'excludeTools'] as const) {
    const list = entry[key];
    if (list === undefined) continue;
    if (spec.toolFilters) out[key] = list;
    else notes.push(`${key} dropped: ${spec.label} cannot filter a server's tools in its config`);
  }
  return { value: out, notes };
}
