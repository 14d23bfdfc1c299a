import { isDeepStrictEqual } from 'node:util';
import type { JsonEdit } from '../internal/json-document.js';
import type { EntryPlan } from './formats/client-file.js';
import { isRecord } from './formats/json-family.js';
import type { ClientContext, ClientFormat } from './formats/types.js';
import { parseServerEntry, type ServerEntry, sanitizeName } from './schema.js';

/**
 * Plans writing `entry` over what the client's file holds under its name, so that a round trip keeps
 * what the user wrote: an entry that already reads the same is left untouched byte for byte; a replaced
 * one keeps every key mcpkit does not model (`envFile`, `trust`, `autoApprove`…) and the client's own
 * spelling of every string that means the same (`${workspaceFolder}`, `${userHome}`, `$TOKEN`).
 */
export function planEntry(
  format: ClientFormat,
  doc: Record<string, unknown>,
  ctx: ClientContext,
  name: string,
  entry: ServerEntry,
  next: Record<string, unknown>,
): EntryPlan {
  const path = [...(format.entryPath?.(doc, ctx, name) ?? [...format.serversPath, name])];
  let old = valueAt(doc, path);
  if (old === undefined) {
    // Import made the name valid for mcpkit ("My Notes!" became "My-Notes"): write back under the client's.
    const siblings = valueAt(doc, path.slice(0, -1));
    const original = isRecord(siblings)
      ? Object.keys(siblings).filter((key) => key !== name && sanitizeName(key) === name)
      : [];
    if (original.length === 1) {
      path[path.length - 1] = original[0] as string;
      old = valueAt(doc, path);
    }
  }
  if (old === undefined) return { name, path, status: 'added', native: next, edits: [{ path, value: next }] };
  if (!isRecord(old)) return { name, path, status: 'replaced', native: next, edits: [{ path, value: next }] };
  const converted = format.fromNative(old);
  const parsed = converted.value ? parseServerEntry(converted.value) : undefined;
  // Unchanged when it reads as the same entry, or when the client would get the same native entry from
  // both (Codex's env_vars reads back as `${X:-}` whether mcpkit wrote `${X}` or `${X:-}`).
  if (
    parsed?.ok &&
    (isDeepStrictEqual(parsed.entry, entry) || isDeepStrictEqual(format.toNative(parsed.entry).value, next))
  ) {
    return { name, path, status: 'unchanged', native: old, edits: [] };
  }
  const unknown = new Set(converted.unknownKeys ?? []);
  const wanted = preferWritten(old, next, format.importText) as Record<string, unknown>;
  const native: Record<string, unknown> = {};
  const edits: JsonEdit[] = [];
  // The old key order first (unknown keys kept, dropped known keys removed), then keys that are new.
  for (const key of Object.keys(old)) {
    if (Object.hasOwn(wanted, key)) native[key] = wanted[key];
    else if (unknown.has(key)) native[key] = old[key];
    else edits.push({ path: [...path, key], value: undefined });
  }
  for (const key of Object.keys(wanted)) if (!Object.hasOwn(native, key)) native[key] = wanted[key];
  for (const key of Object.keys(wanted)) {
    if (!isDeepStrictEqual(old[key], wanted[key])) edits.push({ path: [...path, key], value: wanted[key] });
  }
  return { name, path, status: 'replaced', native, edits };
}

/**
 * `next`, except where `old` holds a string that reads the same once imported (`read`): there the
 * client's own spelling is kept. Arrays are compared element by element, objects key by key.
 */
export function preferWritten(old: unknown, next: unknown, read: (text: string) => string): unknown {
  if (typeof old === 'string' && typeof next === 'string') return read(old) === read(next) ? old : next;
  if (Array.isArray(old) && Array.isArray(next) && old.length === next.length) {
    return next.map((value, i) => preferWritten(old[i], value, read));
  }
  if (isRecord(old) && isRecord(next)) {
    return Object.fromEntries(
      Object.entries(next).map(([key, value]) => [key, preferWritten(old[key], value, read)]),
    );
  }
  return next;
}

function valueAt(doc: Record<string, unknown>, path: readonly string[]): unknown {
  let node: unknown = doc;
  for (const key of path) node = isRecord(node) ? node[key] : undefined;
  return node;
}
