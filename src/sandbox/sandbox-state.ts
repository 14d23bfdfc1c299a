/**
 * Each sandboxed server's state, as the gateway's status resource, `mcpkit list` and the dashboard show it:
 * on, off or unavailable (with why), and its last distinct denials. One record per server name in this
 * process; a denial seen for the first time is also told to the listeners (the gateway logs one line).
 */

/** `on`: runs in a sandbox; `off`: unsandboxed (no `sandbox` key, or `false`); `unavailable`: not started. */
export type SandboxState = 'on' | 'off' | 'unavailable';

/** A refused access: a host the proxy refused, or a path the server was refused (as it reported it). */
export interface SandboxDenial {
  kind: 'host' | 'path';
  /** `host:port`, or the path. */
  target: string;
  /** When it was first seen (ISO time). */
  at: string;
}

/** One server's sandbox, for display. */
export interface SandboxStatus {
  state: SandboxState;
  /** Why it is unavailable. */
  reason?: string;
  /** The last distinct denials, oldest first (at most {@link KEPT_DENIALS}). */
  denials: SandboxDenial[];
}

const KEPT_DENIALS = 10;
const statuses = new Map<string, SandboxStatus>();
const listeners = new Set<(server: string, denial: SandboxDenial) => void>();

/** The sandbox status of a server this process started, if it started one. */
export function sandboxStatus(server: string): SandboxStatus | undefined {
  return statuses.get(server);
}

/** Records a server's state as it starts (denials seen before are kept). */
export function setSandboxState(server: string, state: SandboxState, reason?: string): void {
  const denials = statuses.get(server)?.denials ?? [];
  statuses.set(server, { state, ...(reason === undefined ? {} : { reason }), denials });
}

/** Records a denial; listeners hear of each distinct one once. */
export function recordDenial(server: string, kind: SandboxDenial['kind'], target: string): void {
  const status = statuses.get(server) ?? { state: 'on', denials: [] };
  statuses.set(server, status);
  if (status.denials.some((d) => d.kind === kind && d.target === target)) return;
  const denial = { kind, target, at: new Date().toISOString() };
  status.denials.push(denial);
  if (status.denials.length > KEPT_DENIALS) status.denials.shift();
  for (const listener of listeners) listener(server, denial);
}

/** Hears of each distinct denial; returns the way to stop hearing. */
export function onSandboxDenial(listener: (server: string, denial: SandboxDenial) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The one line a denial is logged as. */
export function denialLine(server: string, denial: SandboxDenial): string {
  const what = denial.kind === 'host' ? `connect to ${denial.target}` : `access ${denial.target}`;
  return `[${server}] sandbox denied ${what}`;
}

// `EACCES: permission denied, open '/x'` (Node), `[Errno 13] Permission denied: '/x'` (Python),
// `cat: /x: Permission denied`, `EROFS: read-only file system, open '/x'`.
const DENIED_PATH =
  /(?:EACCES|EPERM|EROFS)[^']*'(\/[^']+)'|Permission denied: '(\/[^']+)'|(\/[^\s:]+): (?:Permission denied|Read-only file system)/;

/** The path a server's stderr line says it was refused, if it says one. */
export function deniedPathIn(line: string): string | undefined {
  const match = DENIED_PATH.exec(line);
  return match?.[1] ?? match?.[2] ?? match?.[3];
}
