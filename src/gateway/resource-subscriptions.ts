import { type JSONRPCMessage, ResourceNotFoundError } from '@modelcontextprotocol/server';
import type { InterceptContext } from '../serve/index.js';
import { type Catalog, resourceOwner } from './catalog.js';
import type { Downstreams } from './downstream.js';
import { relay } from './relayed.js';
import type { Upstreams } from './upstreams.js';

/** What subscribing to an upstream's resource needs of the gateway. */
export interface SubscriptionHost {
  catalog(): Promise<Catalog>;
  upstreams: Upstreams;
  downstreams: Downstreams;
}

/** The upstream serving a resource URI (listed, matched by a template, or the only one with resources). */
export async function resourceServer(host: SubscriptionHost, uri: string): Promise<string> {
  const owner = resourceOwner(await host.catalog(), uri) ?? host.upstreams.onlyWith('resources');
  if (owner === undefined) throw new ResourceNotFoundError(uri);
  return owner;
}

/** Subscribes the gateway to a resource upstream (a 2025 upstream's `resources/subscribe`, a 2026 listen stream). */
export async function subscribeUpstream(host: SubscriptionHost, uri: string): Promise<void> {
  const owner = await resourceServer(host, uri);
  await relay(() => host.upstreams.ready(owner).subscribeResource(uri));
}

/** Ends the gateway's upstream subscription to a resource once no client wants its updates. */
export async function unsubscribeUpstream(host: SubscriptionHost, uri: string): Promise<void> {
  if (host.downstreams.subscribed(uri)) return;
  const owner = await resourceServer(host, uri);
  await relay(() => host.upstreams.ready(owner).unsubscribeResource(uri));
}

/** How many resources one `subscriptions/listen` stream may name: each is an upstream subscription. */
export const MAX_LISTENED_RESOURCES = 100;

/**
 * A 2026-07-28 client's `subscriptions/listen` request over HTTP (seen before the SDK serves the stream):
 * the resources it names are subscribed to upstream until its answer is over (`onEnd`: the stream closed by
 * either side, or a request the SDK refused at once), so their updates reach the gateway's event bus and, from
 * there, the stream. Subscribing is best effort: a resource no upstream serves, or an upstream that refuses,
 * sends no updates. A request naming more than {@link MAX_LISTENED_RESOURCES} gets the error to answer instead.
 */
export function holdListened(
  host: SubscriptionHost,
  message: JSONRPCMessage,
  context: InterceptContext,
): JSONRPCMessage | undefined {
  if (!('method' in message) || message.method !== 'subscriptions/listen' || context.signal.aborted)
    return undefined;
  const notifications = (
    message.params as { notifications?: { resourceSubscriptions?: unknown } } | undefined
  )?.notifications;
  const uris = notifications?.resourceSubscriptions;
  if (!Array.isArray(uris)) return undefined;
  const named = [...new Set(uris.filter((uri): uri is string => typeof uri === 'string'))];
  if (named.length > MAX_LISTENED_RESOURCES)
    return {
      jsonrpc: '2.0',
      id: 'id' in message ? message.id : null,
      error: {
        code: -32602,
        message: `subscriptions/listen names ${named.length} resources in params.notifications.resourceSubscriptions; the gateway follows at most ${MAX_LISTENED_RESOURCES} a stream: open several streams`,
      },
    } as JSONRPCMessage;
  const subscribing = named.map((uri) => {
    host.downstreams.hold(uri);
    return subscribeUpstream(host, uri).catch(() => undefined);
  });
  context.onEnd(() => {
    named.forEach((uri, i) => {
      host.downstreams.release(uri);
      // After the subscription is made: one still being made would outlive the stream.
      void subscribing[i]?.then(() => unsubscribeUpstream(host, uri)).catch(() => undefined);
    });
  });
  return undefined;
}
