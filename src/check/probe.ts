import { PACKAGE_VERSION } from '../internal/package-version.js';
/**
 * A raw JSON-RPC connection for the quality gates. The SDK client would repair or refuse what the gates
 * must send on purpose (truncated JSON, `"jsonrpc": "1.0"`, requests before `initialize`), so the gates
 * write frames themselves and read every answer.
 */
export interface JsonRpcMessage {
  jsonrpc?: unknown;
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** What both probes (stdio and HTTP) offer the gates. */
export interface Probe {
  readonly kind: 'stdio' | 'http';
  /** Sends a request and waits for its answer; undefined when none came within `timeoutMs`. */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    timeoutMs: number,
  ): Promise<JsonRpcMessage | undefined>;
  /**
   * Writes a frame as given and waits for the answer with `id` (null: an answer to an unparsable frame).
   * `headers` are extra HTTP headers (ignored on stdio).
   */
  raw(
    frame: string,
    id: string | number | null,
    timeoutMs: number,
    headers?: Record<string, string>,
  ): Promise<JsonRpcMessage | undefined>;
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Notifications received so far. */
  readonly notifications: JsonRpcMessage[];
  /** True while the server can still be talked to (stdio: the process runs). */
  alive(): boolean;
  close(): Promise<void>;
}

/** Client identity sent by every gate. */
export const CHECK_CLIENT = { name: 'mcpkit-check', version: PACKAGE_VERSION };

/** The `initialize` params for a protocol version. */
export function initializeParams(protocolVersion: string): Record<string, unknown> {
  return { protocolVersion, capabilities: {}, clientInfo: CHECK_CLIENT };
}

/** The 2025-era versions, newest first. */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

/** The stateless generation. */
export const MODERN_VERSION = '2026-07-28';

/** Runs the 2025 handshake on a probe: initialize then notifications/initialized. */
export async function handshake(
  probe: Probe,
  version: string,
  timeoutMs: number,
): Promise<JsonRpcMessage | undefined> {
  const answer = await probe.request('initialize', initializeParams(version), timeoutMs);
  if (answer?.result) await probe.notify('notifications/initialized');
  return answer;
}
