import type { RelayResponse } from './raw-relay.js';

/**
 * The raw relay of one server, for proxies (the gateway asks `runtime.relay(server)` for it): requests
 * sent as they are, without the SDK client, and answers handed back unparsed.
 */
export interface RawRelayPort {
  /**
   * Sends a request; `onResponse` gets the server's result or error as sent, exactly once (timeouts and
   * a dying server come as errors). Returns the request's id for {@link cancel}, or undefined when the
   * server cannot relay after all (then nothing was sent: use the typed requests). On the 2026-07-28
   * protocol the request gets the per-request `_meta` envelope the SDK client would add.
   */
  request(
    method: string,
    params: Record<string, unknown>,
    onResponse: (response: RelayResponse) => void,
  ): string | undefined;
  /** Tells the server to stop a relayed request (`notifications/cancelled`); it settles with -32800. */
  cancel(id: string, reason?: string): void;
}
