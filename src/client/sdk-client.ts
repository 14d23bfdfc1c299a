import { Client, type ServerCapabilities } from '@modelcontextprotocol/client';
import type { ConnectionContext } from './connection-context.js';
import type { ListKind } from './events.js';
import { capabilitiesFor } from './handlers.js';

/**
 * The SDK client of one connection: capabilities from the host's handlers, server-to-client requests
 * routed to them, and the server's logs, resource updates and list changes turned into Runtime events.
 */
export function createSdkClient(
  server: string,
  ctx: ConnectionContext,
  onListChanged: (list: ListKind) => void,
): Client {
  // No `listChanged` option: on a 2026-07-28 connection the SDK would wait in connect() for the
  // `subscriptions/listen` acknowledgement, and a server slow to give it kept the connection (and a
  // gateway) from coming up. The handlers serve both eras; `listenForChanges` opens the stream after.
  const client = new Client(ctx.clientInfo, {
    capabilities: capabilitiesFor(ctx.handlers),
    versionNegotiation: { mode: 'auto' },
  });
  for (const list of LISTS) {
    client.setNotificationHandler(`notifications/${list}/list_changed`, () => {
      onListChanged(list);
      ctx.emit('list_changed', { server, list });
    });
  }
  const { sampling, elicitation, roots } = ctx.handlers;
  const asker = { server };
  if (sampling) client.setRequestHandler('sampling/createMessage', (req) => sampling(req.params, asker));
  if (elicitation) client.setRequestHandler('elicitation/create', (req) => elicitation(req.params, asker));
  if (roots) client.setRequestHandler('roots/list', async () => ({ roots: await roots(asker) }));
  client.setNotificationHandler('notifications/message', (note) => {
    const { level, logger, data } = note.params;
    ctx.emit('server_log', { server, level, data, ...(logger === undefined ? {} : { logger }) });
  });
  client.setNotificationHandler('notifications/resources/updated', (note) => {
    ctx.emit('resource_updated', { server, uri: note.params.uri });
  });
  // Protocol errors from a misbehaving server must not crash the host; calls report their own failures.
  client.onerror = () => undefined;
  return client;
}

const LISTS = ['tools', 'resources', 'prompts'] as const satisfies readonly ListKind[];

/**
 * On a 2026-07-28 connection, opens the `subscriptions/listen` stream for the lists the server says
 * change, without waiting for its acknowledgement: the connection is usable at once, and the changes
 * reach the handlers of {@link createSdkClient} once the server acknowledges. A stream that fails to
 * open costs only its notifications.
 */
export function listenForChanges(client: Client, timeoutMs: number): void {
  if (client.getProtocolEra() !== 'modern') return;
  const advertised: ServerCapabilities = client.getServerCapabilities() ?? {};
  const filter = {
    ...(advertised.tools?.listChanged ? { toolsListChanged: true } : {}),
    ...(advertised.prompts?.listChanged ? { promptsListChanged: true } : {}),
    ...(advertised.resources?.listChanged ? { resourcesListChanged: true } : {}),
  };
  if (Object.keys(filter).length === 0) return;
  client.listen(filter, { timeout: timeoutMs }).catch(() => undefined);
}
