import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type Client,
  type Implementation,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/client';
import { capabilitiesFor, type RuntimeHandlers } from './handlers.js';
import type { RawRelay, RelayResponse } from './raw-relay.js';

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

/** What a connection's port reads at each call (the relay and client change when it reconnects). */
export interface RelaySource {
  /** The relay while the server is ready and its transport can relay; undefined otherwise. */
  liveRelay(): RawRelay | undefined;
  /** The SDK client of the current connection (its era and version make the envelope). */
  client(): Client | undefined;
  timeoutMs(): number;
  clientInfo: Implementation;
  handlers: RuntimeHandlers;
}

/** The port of one connection; stable across reconnects. */
export function createRelayPort(source: RelaySource): RawRelayPort {
  // Per SDK client: a reconnect negotiates again, so its envelope may differ.
  const envelopes = new WeakMap<Client, Record<string, unknown>>();
  const envelope = (): Record<string, unknown> | undefined => {
    const client = source.client();
    if (client?.getProtocolEra() !== 'modern') return undefined;
    let made = envelopes.get(client);
    if (!made) {
      made = {
        [PROTOCOL_VERSION_META_KEY]: client.getNegotiatedProtocolVersion(),
        [CLIENT_INFO_META_KEY]: source.clientInfo,
        [CLIENT_CAPABILITIES_META_KEY]: capabilitiesFor(source.handlers),
      };
      envelopes.set(client, made);
    }
    return made;
  };
  return {
    request: (method, params, onResponse) => {
      const relay = source.liveRelay();
      if (!relay) return undefined;
      const meta = envelope();
      const own = params._meta as Record<string, unknown> | undefined;
      // A proxy relaying for a 2026-07-28 client names that client's capabilities: the server must ask
      // only for input the client can give (it answers the server's input requests itself).
      const theirs = own?.[CLIENT_CAPABILITIES_META_KEY];
      const sent = meta
        ? {
            ...params,
            _meta: {
              ...own,
              ...meta,
              ...(theirs === undefined ? {} : { [CLIENT_CAPABILITIES_META_KEY]: theirs }),
            },
          }
        : params;
      return relay.request(method, sent, source.timeoutMs(), onResponse);
    },
    cancel: (id, reason) => source.liveRelay()?.cancel(id, reason, envelope()),
  };
}
